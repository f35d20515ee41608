package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SourceRegistryTest {
    @TempDir
    Path dir;

    /** A provider for one scheme that records what it opened and whether it was closed. */
    static final class FakeProvider implements RandomAccessSourceProvider, AutoCloseable {
        final String scheme;
        final List<Location> opened = new ArrayList<>();
        int closes;
        Exception closeFailure;

        FakeProvider(String scheme) {
            this.scheme = scheme;
        }

        @Override
        public boolean supports(Location location) {
            return scheme.equals(location.scheme());
        }

        @Override
        public RandomAccessSource open(Location location) {
            opened.add(location);
            return new MemorySource(location.display(), new byte[] {1, 2, 3});
        }

        @Override
        public void close() throws Exception {
            closes++;
            if (closeFailure != null) {
                throw closeFailure;
            }
        }
    }

    @Test
    void theFirstProviderThatSupportsAUriOpensIt() throws Exception {
        FakeProvider first = new FakeProvider("s3");
        FakeProvider second = new FakeProvider("s3");
        FakeProvider gs = new FakeProvider("gs");
        try (SourceRegistry registry = SourceRegistry.builder().provider(first).provider(gs).provider(second).build();
             RandomAccessSource a = registry.open(Location.parse("s3://b/k"));
             RandomAccessSource b = registry.open("gs://b/o")) {
            assertEquals(3, a.size());
            assertEquals(3, b.size());
            assertEquals(List.of(Location.parse("s3://b/k")), first.opened);
            assertEquals(List.of(), second.opened, "a later provider for the same scheme is never asked");
            assertEquals(List.of(Location.parse("gs://b/o")), gs.opened);
            assertEquals(List.of(first, gs, second), registry.providers().subList(0, 3));
        }
    }

    @Test
    void providersTheApplicationPassedAreNeverClosed() throws Exception {
        FakeProvider mine = new FakeProvider("s3");
        SourceRegistry registry = SourceRegistry.builder().provider(mine).installedProviders().build();
        registry.close();
        registry.close();
        assertEquals(0, mine.closes, "the application's client stays open");
        StorageException e = assertThrows(StorageException.class, () -> registry.open(Location.parse("s3://b/k")));
        assertEquals(ErrorCode.IO_ERROR, e.code());
        assertEquals(List.of(), mine.opened);
    }

    @Test
    void installedProvidersComeAfterTheApplicationsAndLocalFilesAreAlwaysServed() throws Exception {
        Path file = dir.resolve("m.safetensors");
        Files.write(file, SafetensorsFixture.create().tensor("w", "F32", 2).build());
        FakeProvider mine = new FakeProvider("s3");
        try (SourceRegistry bare = SourceRegistry.builder().build();
             SourceRegistry installed = SourceRegistry.builder().provider(mine).installedProviders().build();
             RandomAccessSource a = bare.open(Location.of(file.toUri()));
             RandomAccessSource b = bare.open(file.toString());
             RandomAccessSource c = installed.open(file)) {
            assertInstanceOf(FileSource.class, a);
            assertEquals(a.size(), b.size());
            assertEquals(a.size(), c.size());
            assertSame(mine, installed.providers().get(0));
            assertTrue(installed.providers().stream().anyMatch(p -> p instanceof FileSourceProvider),
                    installed.toString());
        }
    }

    @Test
    void anInstalledProviderOfAClassTheApplicationSuppliedIsNotCreated() throws Exception {
        FileSourceProvider mine = new FileSourceProvider();
        try (SourceRegistry registry = SourceRegistry.builder().provider(mine).installedProviders().build()) {
            assertEquals(1, registry.providers().stream().filter(p -> p instanceof FileSourceProvider).count(),
                    registry.toString());
            assertSame(mine, registry.providers().get(0));
        }
    }

    @Test
    void closingClosesEveryCreatedProviderAndReportsTheFirstFailure() throws Exception {
        // a registry creates providers only through ServiceLoader; the default Sources registry is never closed,
        // so close semantics of created providers are checked on a registry whose created list is given directly
        FakeProvider failing = new FakeProvider("a");
        failing.closeFailure = new IllegalStateException("boom");
        FakeProvider ioFailing = new FakeProvider("b");
        ioFailing.closeFailure = new IOException("disk");
        FakeProvider fine = new FakeProvider("c");
        SourceRegistry registry = SourceRegistry.owning(List.of(failing, ioFailing, fine));
        StorageException e = assertThrows(StorageException.class, registry::close);
        assertEquals(ErrorCode.IO_ERROR, e.code());
        assertSame(failing.closeFailure, e.getCause());
        assertEquals(1, e.getSuppressed().length);
        assertSame(ioFailing.closeFailure, e.getSuppressed()[0]);
        assertEquals(1, failing.closes);
        assertEquals(1, ioFailing.closes);
        assertEquals(1, fine.closes, "one failure does not leave the others open");
    }

    @Test
    void anUnknownSchemeIsUnsupportedScheme() throws Exception {
        try (SourceRegistry registry = SourceRegistry.builder().provider(new FakeProvider("s3")).build()) {
            InvalidLocationException e = assertThrows(InvalidLocationException.class,
                    () -> registry.open(Location.parse("ftp://host/m.safetensors")));
            assertEquals(ErrorCode.UNSUPPORTED_SCHEME, e.code());
            assertTrue(e.getMessage().contains("'ftp:'"), e.getMessage());
            assertTrue(e.getMessage().contains("installed: FakeProvider"), "named by what is installed: "
                    + e.getMessage());
            assertFalse(e.getMessage().contains("safetensors-s3"), "core names no backend: " + e.getMessage());
        }
    }

    @Test
    void localLocationsAreWrittenByTheLocalWriterAndOtherSchemesNeedAnInstalledOne() throws IOException {
        try (SourceRegistry registry = SourceRegistry.builder().installedProviders().build()) {
            Path target = dir.resolve("w/x.bin");
            dev.safetensors.spi.ObjectWriterProvider local = registry.writer(Location.parse(target.toString()));
            assertInstanceOf(FileObjectWriter.class, local);
            try (dev.safetensors.spi.ObjectUpload upload = local.create(Location.parse(target.toString()),
                    dev.safetensors.spi.UploadOptions.DEFAULT)) {
                upload.write(java.nio.ByteBuffer.wrap(new byte[] {7}));
                upload.commit();
            }
            assertEquals(1, Files.size(target));
            InvalidLocationException none = assertThrows(InvalidLocationException.class,
                    () -> registry.writer(Location.parse("nowhere://bucket/x.bin")));
            assertEquals(ErrorCode.UNSUPPORTED_SCHEME, none.code());
            assertTrue(none.getMessage().contains("no storage backend writes 'nowhere:' objects"), none.getMessage());
        }
    }

    @Test
    void aClosedRegistryGivesNoWriter() throws IOException {
        SourceRegistry registry = SourceRegistry.builder().build();
        registry.close();
        StorageException closed = assertThrows(StorageException.class,
                () -> registry.writer(Location.parse(dir.resolve("x.bin").toString())));
        assertEquals(ErrorCode.IO_ERROR, closed.code());
    }

    @Test
    void anApplicationsWriterIsAskedFirstAndNeverClosedByTheRegistry() throws IOException {
        boolean[] closed = {false};
        MemoryStore store = new MemoryStore();
        class OwnWriter implements dev.safetensors.spi.ObjectWriterProvider, AutoCloseable {
            @Override
            public boolean supports(Location location) {
                return store.supports(location);
            }

            @Override
            public dev.safetensors.spi.ObjectUpload create(Location object, dev.safetensors.spi.UploadOptions options)
                    throws IOException {
                return store.create(object, options);
            }

            @Override
            public void delete(Location object) {
                store.delete(object);
            }

            @Override
            public void close() {
                closed[0] = true;
            }
        }
        OwnWriter own = new OwnWriter();
        SourceRegistry registry = SourceRegistry.builder().writer(own).installedProviders().build();
        assertSame(own, registry.writer(Location.parse("mem://bucket/x.bin")));
        registry.close();
        assertFalse(closed[0], "the application's writer stays open");
        assertThrows(NullPointerException.class, () -> SourceRegistry.builder().writer(null));
    }
}
