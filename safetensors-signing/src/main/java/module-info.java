/**
 * OpenSSF Model Signing (OMS) v1.0: {@link dev.safetensors.signing.ModelSigner} signs a model's files into a
 * Sigstore bundle with an ECDSA key (and optionally its X.509 certificate chain), and
 * {@link dev.safetensors.signing.ModelVerifier} checks such a bundle against a public key, trusted CAs, or (keyless
 * Sigstore bundles) a {@link dev.safetensors.signing.SigstoreTrustRoot} and an expected identity, offline, and then
 * against the model's bytes. Everything runs on the JDK's own cryptography; keyless Sigstore signing is not
 * offered (it needs an OIDC token and the network).
 */
module dev.safetensors.signing {
    requires transitive dev.safetensors.core;
    requires tools.jackson.core;

    exports dev.safetensors.signing;
}
