package dev.safetensors.core;

import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.fixtures.MemorySource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Read-then-write: every tensor and the metadata of a file, through the reader and the writer. */
final class RoundTrip {
    private RoundTrip() {
    }

    /** @return a writer holding everything {@code file} holds, tensors in data order */
    static SafetensorsWriter rewrite(byte[] file, Limits limits) throws IOException {
        try (SafetensorsFile read = SafetensorsFile.open(new MemorySource("original", file), limits)) {
            SafetensorsWriter writer = SafetensorsWriter.create(limits).metadata(read.header().metadata());
            for (TensorInfo t : read.header().tensors()) {
                writer.tensor(t.name(), t.dtype(), t.shape(), read.readBytes(t.name()));
            }
            return writer;
        }
    }

    /** Rewrites {@code file} and checks that the copy holds identical tensors, bytes and metadata. */
    static void assertSurvives(String name, byte[] file, Limits limits) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        rewrite(file, limits).writeTo(Channels.newChannel(out));
        try (SafetensorsFile original = SafetensorsFile.open(new MemorySource(name, file), limits);
             SafetensorsFile copy = SafetensorsFile.open(new MemorySource(name + " rewritten", out.toByteArray()),
                     limits)) {
            SafetensorsHeader a = original.header();
            SafetensorsHeader b = copy.header();
            assertEquals(a.metadata(), b.metadata(), name);
            assertEquals(a.tensors(), b.tensors(), name);
            assertEquals(0, b.payloadOffset() % 8, name + ": the copy's payload is 8-aligned");
            for (TensorInfo t : a.tensors()) {
                assertArrayEquals(original.readBytes(t.name()).array(), copy.readBytes(t.name()).array(),
                        name + ": " + t.name());
            }
        }
    }
}
