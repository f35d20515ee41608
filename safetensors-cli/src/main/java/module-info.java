/**
 * The {@code safetensors} command: {@code inspect}, {@code validate}, {@code verify}, {@code manifest} and
 * {@code dump} for local files, remote objects, sharded checkpoints and Hugging Face Hub repositories.
 *
 * <p>Storage backends are found through {@link java.util.ServiceLoader}; the HTTP module is required for Hub
 * repository lookup. The cloud backends are not required at all: {@code bin/safetensors} starts the command with
 * this module, the core and the HTTP backend alone, and the command loads a cloud backend (S3, GCS, Azure, each with
 * its SDK) into a module layer of its own the first time a location needs a scheme it serves, wherever that location
 * came from (an argument, standard input, {@code --from-file}, an index, a listing). Scanning an SDK's jars costs a
 * quarter of a second, which a run over local files never pays. The command names no backend type: the S3 options
 * reach the S3 provider as system properties.
 */
module dev.safetensors.cli {
    requires dev.safetensors.core;
    requires dev.safetensors.http;
    requires dev.safetensors.signing;
    // the JDK's System.Logger backend once present; Main routes it (DebugLog)
    requires java.logging;
    requires tools.jackson.core;

    uses dev.safetensors.RandomAccessSourceProvider;
    uses dev.safetensors.spi.ObjectWriterProvider;
}
