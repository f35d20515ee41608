package dev.safetensors.cli.fakebackend;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.StorageException;


/**
 * A backend for {@code BackendTest}, copied into a jar of its own and loaded into a layer: it serves {@code echo:}
 * and fails every open with what it saw when it was constructed (its module and the S3 endpoint property), so the test sees where it was defined and with which settings.
 */
public final class EchoProvider implements RandomAccessSourceProvider {
    private final String seen;

    /** Records its module and the S3 endpoint property of its construction. */
    public EchoProvider() {
        seen = "module=" + EchoProvider.class.getModule().getName() + " endpoint="
                + System.getProperty("safetensors.s3.endpoint");
    }

    @Override
    public boolean supports(Location location) {
        return "echo".equals(location.scheme());
    }

    @Override
    public RandomAccessSource open(Location location) throws StorageException {
        throw new StorageException(ErrorCode.NOT_A_FILE, location.display(), seen);
    }
}
