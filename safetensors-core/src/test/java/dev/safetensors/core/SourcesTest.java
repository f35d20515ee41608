package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SourcesTest {
    @TempDir
    Path dir;

    @Test
    void fileUrisPathsAndPlainStringsOpenLocalFiles() throws Exception {
        Path file = dir.resolve("m.safetensors");
        Files.write(file, SafetensorsFixture.create().tensor("w", "F32", 2).build());
        try (RandomAccessSource a = Sources.open(Location.of(file.toUri()));
             RandomAccessSource b = Sources.open(file);
             RandomAccessSource c = Sources.open(file.toString())) {
            assertInstanceOf(FileSource.class, a);
            assertEquals(a.size(), b.size());
            assertEquals(a.size(), c.size());
            assertEquals(1, Safetensors.readHeader(a).tensors().size());
        }
    }

    @Test
    void anUnknownSchemeSaysABackendModuleIsMissingAndWhatIsInstalled() {
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> Sources.open(Location.parse("ftp://host/m.safetensors")));
        assertEquals(ErrorCode.UNSUPPORTED_SCHEME, e.code());
        assertTrue(e.getMessage().contains("'ftp:'"), e.getMessage());
        assertTrue(e.getMessage().contains("needs the backend module that serves it"), e.getMessage());
        assertTrue(e.getMessage().contains("installed: FileSourceProvider"), e.getMessage());
    }

    @Test
    void providersAreLoadedOnceSoTheirClientsAreShared() {
        List<RandomAccessSourceProvider> first = Sources.defaultRegistry().providers();
        List<RandomAccessSourceProvider> second = Sources.defaultRegistry().providers();
        assertFalse(first.isEmpty());
        assertTrue(first.stream().anyMatch(p -> p instanceof FileSourceProvider), first.toString());
        for (int i = 0; i < first.size(); i++) {
            assertSame(first.get(i), second.get(i), "a provider, and the client it holds, is built once");
        }
    }

    @Test
    void whatUsersTypeIsAUriOnlyWithARealScheme() {
        assertNull(Sources.asUri("model.safetensors"));
        assertNull(Sources.asUri("C:\\models\\m.safetensors"));
        assertNull(Sources.asUri("./a:b.safetensors"));
        assertEquals("s3", Sources.asUri("s3://bucket/key").getScheme());
        assertEquals("hf", Sources.asUri("hf://owner/repo/model.safetensors").getScheme());
        assertEquals("file", Sources.asUri("file:/tmp/x").getScheme());
    }
}
