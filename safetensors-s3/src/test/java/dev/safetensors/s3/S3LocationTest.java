package dev.safetensors.s3;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class S3LocationTest {

    @Test
    void parsesBucketAndKey() {
        assertEquals(new S3Location("models", "llama/model-00001-of-00002.safetensors", null),
                S3Location.parse(URI.create("s3://models/llama/model-00001-of-00002.safetensors")));
    }

    @Test
    void parsesAVersionKeepingPlusAndSlash() {
        S3Location location = S3Location.parse(URI.create("s3://models/m.safetensors?versionId=3/L4k%2Bq+x"));
        assertEquals("3/L4k+q+x", location.versionId());
        assertEquals("s3://models/m.safetensors", location.name());
    }

    @Test
    void decodesPercentEscapesInTheKey() {
        assertEquals("dir/a b.safetensors",
                S3Location.parse(URI.create("s3://models/dir/a%20b.safetensors")).key());
    }

    @Test
    void acceptsLegacyBucketNames() {
        assertEquals("Old_Bucket", S3Location.parse(URI.create("s3://Old_Bucket/k")).bucket());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "s3://models", "s3://models/", "s3:models/k", "gs://models/k", "s3://user:secret@models/k",
            "s3://models:9000/k", "s3://models/k#frag", "s3://models/k?versionId=", "s3://models/k?partNumber=1",
            "s3://models/k?versionId=a&versionId=b", "s3://models/k?versionId", "s3:///k", "s3://bad%2Fbucket/k"})
    void refusesWhatIsNotOneObject(String uri) {
        assertThrows(IllegalArgumentException.class, () -> S3Location.parse(URI.create(uri)));
    }

    @Test
    void aRefusedUriWithUserInformationDoesNotRepeatIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> S3Location.parse(URI.create("s3://AKIA:secret@models/k")));
        assertEquals(-1, e.getMessage().indexOf("secret"), e.getMessage());
    }
}
