package dev.safetensors.gcs;

import dev.safetensors.Location;
import dev.safetensors.spi.SourceNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GcsUriTest {

    @Test
    void bucketAndObjectWithSlashes() throws IOException {
        assertEquals(new GcsUri("b", "dir/sub/m.safetensors", -1),
                GcsUri.parse(URI.create("gs://b/dir/sub/m.safetensors")));
    }

    @Test
    void theObjectNameIsPercentDecoded() throws IOException {
        assertEquals("a b/é.safetensors", GcsUri.parse(URI.create("gs://b/a%20b/%C3%A9.safetensors")).object());
    }

    @Test
    void generationFromFragmentOrQuery() throws IOException {
        assertEquals(42, GcsUri.parse(URI.create("gs://b/o#42")).generation());
        assertEquals(42, GcsUri.parse(URI.create("gs://b/o?generation=42")).generation());
        assertEquals(42, GcsUri.parse(URI.create("gs://b/o?generation=42#42")).generation());
    }

    @Test
    void bucketNamesWithUnderscoresAreAccepted() throws IOException {
        assertEquals("my_bucket", GcsUri.parse(URI.create("gs://my_bucket/o")).bucket());
    }

    @ParameterizedTest
    @ValueSource(strings = {"gs://b", "gs://b/", "gs:///o", "gs://b/o#x1", "gs://b/o?generation=", "gs://b/o#1?",
            "gs://b/o?generation=1&x=2", "gs://b/o?userProject=p", "gs://b/o?generation=1#2", "gs://u@b/o",
            "gs://b:80/o", "s3://b/o", "gs://b/o#99999999999999999999"})
    void malformedUrisAreRefused(String uri) {
        MalformedURLException e = assertThrows(MalformedURLException.class, () -> GcsUri.parse(URI.create(uri)));
        assertTrue(e.getMessage().startsWith(SourceNames.redact(URI.create(uri)) + ": "),
                "names the URI first: " + e.getMessage());
    }

    @Test
    void theProviderSupportsOnlyHierarchicalGsUris() {
        GcsSourceProvider provider = new GcsSourceProvider();
        assertTrue(provider.supports(Location.parse("gs://b/o")));
        assertTrue(provider.supports(Location.parse("GS://b/o")));
        assertFalse(provider.supports(Location.parse("gs:b/o")));
        assertFalse(provider.supports(Location.parse("s3://b/o")));
        assertFalse(provider.supports(Location.parse("https://storage.googleapis.com/b/o")));
    }

    @Test
    void mediaUrlsEncodeEverySegmentCharacterButUnreservedOnes() {
        assertEquals("http://h/download/storage/v1/b/b_1/o/a%2Fb%20c~d-e.f_g%3F%23%25?alt=media",
                MediaUrl.of("http://h/", new GcsUri("b_1", "a/b c~d-e.f_g?#%", -1), -1));
        assertEquals("http://h/download/storage/v1/b/b/o/o?alt=media&generation=7&ifGenerationMatch=7",
                MediaUrl.of("http://h", new GcsUri("b", "o", 7), 7));
    }
}
