/**
 * The {@code safetensors} command: {@code inspect}, {@code validate}, {@code verify}, {@code manifest} and
 * {@code dump} for local files, remote objects, sharded checkpoints and Hugging Face Hub repositories.
 *
 * <p>Storage backends are found through {@link java.util.ServiceLoader}; the HTTP module is required for Hub
 * repository lookup. The S3 module is optional ({@code requires static}): the AWS SDK's 30-odd automatic modules cost
 * a quarter of a second of every start to scan, so {@code bin/safetensors} puts them on the module path only when the
 * command line names an {@code s3://} source or an {@code --s3-} option.
 */
module dev.safetensors.cli {
    requires dev.safetensors.core;
    requires dev.safetensors.http;
    requires static dev.safetensors.s3;
    // the JDK's System.Logger backend once present; Main routes it (DebugLog)
    requires java.logging;
    requires tools.jackson.core;

    uses dev.safetensors.RandomAccessSourceProvider;
}
