package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fixtures.SafetensorsFixture;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The program {@link DownloadFullDiskTest} runs in a child JVM whose file size limit ({@code ulimit -f}) is below the
 * file it downloads, so the write fails as on a full disk: {@code DIR} gets a 1 MiB checkpoint, and the code of the
 * failure is printed on stdout.
 */
final class ChildDownload {
    private ChildDownload() {
    }

    public static void main(String[] args) {
        byte[] file = SafetensorsFixture.create().tensor("w", "U8", 1 << 20).build();
        try (MemorySource source = new MemorySource("mem://store/model.safetensors", file)) {
            FileDownload.builder(source, s -> FileDownload.Placement.beside(Path.of(args[0], "model.safetensors")))
                    .build().run();
            System.out.println("written");
        } catch (IOException e) {
            System.out.println(ErrorCode.of(e));
        }
    }
}
