package dev.safetensors.core;

import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.fixtures.AbstractProviderContractTest;

import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The provider contract for local files: {@code file:} URIs, listed as folders. */
class FileProviderContractTest extends AbstractProviderContractTest {
    @TempDir
    Path dir;

    @Override
    protected RandomAccessSourceProvider newProvider() {
        return new FileSourceProvider();
    }

    @Override
    protected List<String> supportedLocations() {
        return List.of("file:///tmp/m.safetensors");
    }

    @Override
    protected String malformedLocation() {
        // a file URI with a host: no local path
        return "file://remote-host/m.safetensors";
    }

    @Override
    protected String putUnderFreshPrefix(List<String> names, byte[] content) throws Exception {
        Path folder = Files.createDirectories(dir.resolve("prefix"));
        for (String name : names) {
            Files.write(folder.resolve(name), content);
        }
        return folder.toUri().toString();
    }
}
