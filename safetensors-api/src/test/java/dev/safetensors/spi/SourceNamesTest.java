package dev.safetensors.spi;

import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SourceNamesTest {

    @Test
    void dropsUserInfoQueryAndFragment() {
        assertEquals("https://cdn.example.com:8443/a/b.safetensors",
                SourceNames.redact(URI.create("https://user:secret@cdn.example.com:8443/a/b.safetensors?X-Amz-Signature=abc#frag")));
        assertEquals("s3://bucket/key/model.safetensors",
                SourceNames.redact(URI.create("s3://bucket/key/model.safetensors?versionId=3")));
        assertEquals("s3://my_bucket/k", SourceNames.redact(URI.create("s3://my_bucket/k")));
        assertEquals("file:/tmp/x", SourceNames.redact(URI.create("file:/tmp/x")));
    }

    @Test
    void clipsLongAndControlText() {
        assertEquals("a?b", SourceNames.clip("a\nb"));
        assertEquals(203, SourceNames.clip("x".repeat(500)).length());
    }
}
