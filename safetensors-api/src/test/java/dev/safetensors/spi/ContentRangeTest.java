package dev.safetensors.spi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ContentRangeTest {

    @Test
    void parsesAWellFormedRange() {
        assertEquals(Optional.of(new ContentRange(0, 131071, 2_000_000_000L)),
                ContentRange.parse("bytes 0-131071/2000000000"));
        assertEquals(131072, ContentRange.parse("bytes 0-131071/131072").orElseThrow().length());
        assertEquals(Optional.of(new ContentRange(5, 5, 6)), ContentRange.parse("Bytes 5-5/6"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "bytes", "bytes 0--1/0", "bytes 0-9/*", "bytes */100", "bytes 10-5/100",
            "bytes 0-100/100", "bytes -1-5/100", "bytes 0-5/-100", "bytes +0-5/100", "bytes 0-5/1e3",
            "items 0-5/100", "bytes 0-5", "bytes 0 -5/100", "bytes 0-99999999999999999999/100",
            "bytes 0-5/99999999999999999999", "bytes 0-5/100/7"})
    void rejectsNonsense(String value) {
        assertTrue(ContentRange.parse(value).isEmpty(), value);
    }

    @Test
    void readsTheTotalOfAnUnsatisfiedRange() {
        assertEquals(java.util.OptionalLong.of(5000), ContentRange.unsatisfiedTotal("bytes */5000"));
        assertTrue(ContentRange.unsatisfiedTotal("bytes */").isEmpty());
        assertTrue(ContentRange.unsatisfiedTotal("bytes */-1").isEmpty());
        assertTrue(ContentRange.unsatisfiedTotal("bytes 0-1/2").isEmpty());
        assertTrue(ContentRange.unsatisfiedTotal(null).isEmpty());
    }
}
