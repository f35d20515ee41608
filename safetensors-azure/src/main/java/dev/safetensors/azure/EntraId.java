package dev.safetensors.azure;

import com.azure.core.credential.TokenCredential;

/**
 * Entra ID sign-in through azure-identity's {@code DefaultAzureCredential}, which this module reads only when it is
 * present ({@code requires static}): its types are named in {@link Present} alone, so nothing loads them unless
 * {@link #available()} said yes.
 */
final class EntraId {
    private static final String IDENTITY_MODULE = "com.azure.identity";
    private static final String BUILDER = "com.azure.identity.DefaultAzureCredentialBuilder";

    private EntraId() {
    }

    /** @return whether azure-identity can be used: resolved and read on the module path, or on the class path */
    static boolean available() {
        Module self = EntraId.class.getModule();
        if (self.isNamed()) {
            ModuleLayer layer = self.getLayer();
            return layer != null && layer.findModule(IDENTITY_MODULE).map(self::canRead).orElse(false);
        }
        try {
            Class.forName(BUILDER, false, EntraId.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** @return a new {@code DefaultAzureCredential}; only after {@link #available()} said yes */
    static TokenCredential defaultCredential() {
        return Present.create();
    }

    /** The one place that names azure-identity's types. */
    private static final class Present {
        static TokenCredential create() {
            return new com.azure.identity.DefaultAzureCredentialBuilder().build();
        }
    }
}
