package dev.safetensors;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.URI;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LocationTest {
    @Test
    void aSchemeOfTwoOrMoreLettersMakesAUriAndAnythingElseIsAPath() {
        assertEquals("s3", Location.parse("s3://b/k.safetensors").scheme());
        assertTrue(Location.parse("C:\\m.safetensors").uri().isEmpty());
        assertTrue(Location.parse("models/m.safetensors").isLocal());
        assertTrue(Location.parse("file:/tmp/m.safetensors").isLocal());
        assertEquals(Path.of("/tmp/m.safetensors"), Location.parse("file:/tmp/m.safetensors").path());
        assertFalse(Location.parse("gs://b/o").isLocal());
        assertThrows(IllegalStateException.class, () -> Location.parse("gs://b/o").path());
    }

    @Test
    void aMalformedUriStillLooksLikeOne() {
        Location bad = Location.parse("s3://bucket/a key with spaces");
        assertTrue(bad.uri().isEmpty());
        assertTrue(bad.looksLikeUri());
        assertFalse(Location.parse("./x://y").looksLikeUri());
    }

    @Test
    void indexesFoldersAndFileNames() {
        assertTrue(Location.parse("hf://ns/repo/model.safetensors.index.json").isIndex());
        assertTrue(Location.parse("dir/model.safetensors.index.json").isIndex());
        assertFalse(Location.parse("https://h/model.safetensors.index.json.bak").isIndex());
        assertTrue(Location.parse("s3://bucket/models/").isFolder());
        assertTrue(Location.parse("s3://bucket").isFolder());
        assertTrue(Location.parse("downloads/").isFolder());
        assertFalse(Location.parse("s3://bucket/m.safetensors").isFolder());
        assertEquals("a b.safetensors", Location.parse("s3://b/x/a%20b.safetensors").fileName());
        assertEquals("", Location.parse("s3://b/x/").fileName());
    }

    @Test
    void siblingsArePercentEncodedAndDropTheQuery() {
        Location index = Location.parse("https://h.example/r/model.safetensors.index.json?sig=secret");
        assertEquals("https://h.example/r/a%3Fb%23c%40d.safetensors", index.sibling("a?b#c@d.safetensors").text());
        assertEquals("s3://bucket/models/x.safetensors", Location.parse("s3://bucket/models/").sibling("x.safetensors").text());
        assertEquals("s3://bucket/x.safetensors", Location.parse("s3://bucket").sibling("x.safetensors").text());
        assertEquals(Path.of("dir", "x.safetensors").toString(), Location.parse("dir/y.safetensors").sibling("x.safetensors").text());
        assertEquals("x.safetensors", Location.parse("y.safetensors").sibling("x.safetensors").text());
        assertThrows(IllegalArgumentException.class, () -> index.sibling("../up.safetensors"));
        assertThrows(IllegalArgumentException.class, () -> index.sibling(".."));
    }

    @Test
    void theDisplayFormHidesSignaturesAndUserInformation() {
        assertEquals("https://h.example/m.safetensors",
                Location.parse("https://user:pw@h.example/m.safetensors?X-Amz-Signature=abc").display());
        assertEquals("s3://b/k", Location.parse("s3://b/k").display());
        assertEquals("ftp://h.example/m.safetensors", Location.parse("ftp://user:pw@h.example/m.safetensors").display());
        assertEquals("hdfs://nn:8020/m", Location.parse("hdfs://user:pw@nn:8020/m").toString());
        assertEquals("wasbs://container@account.example/m",
                Location.parse("wasbs://container@account.example/m").display());
        assertEquals("https://h.example/m.safetensors?sig=1",
                Location.parse("https://h.example/m.safetensors?sig=1").text());
        assertEquals(Location.parse("s3://b/k"), Location.of(URI.create("s3://b/k")));
    }

    private static Location roundTrip(Location location) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(location);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (Location) in.readObject();
        }
    }

    @Test
    void aLocationSurvivesSerializationAsWhatItWas() throws Exception {
        for (Location l : new Location[] {Location.parse("s3://b/k.safetensors"),
                Location.parse("https://h.example/m.safetensors?sig=1"), Location.parse("dir/m.safetensors"),
                Location.of(URI.create("hf://acme/tiny@main/model.safetensors"))}) {
            Location back = roundTrip(l);
            assertEquals(l, back);
            assertEquals(l.isLocal(), back.isLocal(), l.text());
            assertEquals(l.uri(), back.uri(), l.text());
        }
        // a path whose text would parse as a URI stays a path
        Location path = Location.of(Path.of("s3:", "b"));
        assertTrue(roundTrip(path).isLocal());
    }

    @Test
    void aProviderAsksForTheUriAndAPathIsAnInvalidSourceNamedByItsDisplayForm() throws InvalidLocationException {
        assertEquals(URI.create("s3://b/k"), Location.parse("s3://b/k").requireUri());
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> Location.parse("models/m.safetensors").requireUri());
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertTrue(e.getMessage().contains("models/m.safetensors"), e.getMessage());
        // a URI with a space does not parse, so it is a path; its message is its display form
        InvalidLocationException spaced = assertThrows(InvalidLocationException.class,
                () -> Location.parse("s3://b/a key").requireUri());
        assertEquals(ErrorCode.INVALID_SOURCE, spaced.code());
    }
}
