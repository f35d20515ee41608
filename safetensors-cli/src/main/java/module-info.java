/**
 * The {@code safetensors} command: {@code inspect}, {@code validate}, {@code verify}, {@code manifest} and
 * {@code dump} for local files, remote objects, sharded checkpoints and Hugging Face Hub repositories.
 *
 * <p>Storage backends are found through {@link java.util.ServiceLoader}; the HTTP and S3 modules are required by
 * name only for what needs their API: Hub repository lookup and the S3 endpoint options.
 */
module dev.safetensors.cli {
    requires dev.safetensors.core;
    requires dev.safetensors.http;
    requires dev.safetensors.s3;
    requires info.picocli;
    requires tools.jackson.core;

    uses dev.safetensors.RandomAccessSourceProvider;

    // picocli sets the annotated option fields reflectively
    opens dev.safetensors.cli to info.picocli;
}
