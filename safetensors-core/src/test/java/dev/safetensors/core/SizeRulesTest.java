package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;

import static dev.safetensors.core.HeaderAssertions.fails;
import static dev.safetensors.core.HeaderAssertions.valid;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Rules 12 to 14 on both sides of every bound. */
class SizeRulesTest {

    @Test
    void rule12NamesUpTo1024Utf8Bytes() throws Exception {
        valid(SafetensorsFixture.create().tensor("n".repeat(1024), "U8", 1).build());
        fails(ErrorCode.STRING_TOO_LONG, SafetensorsFixture.create().tensor("n".repeat(1025), "U8", 1).build());
        // 512 two-byte characters are 1024 bytes; 342 three-byte characters are 1026 bytes in 342 chars
        valid(SafetensorsFixture.create().tensor("\u00e9".repeat(512), "U8", 1).build());
        fails(ErrorCode.STRING_TOO_LONG, SafetensorsFixture.create().tensor("\u00e9".repeat(513), "U8", 1).build());
        fails(ErrorCode.STRING_TOO_LONG, SafetensorsFixture.create().tensor("\u20ac".repeat(342), "U8", 1).build());
        valid(SafetensorsFixture.create().tensor("\uD83D\uDE00".repeat(256), "U8", 1).build());
        fails(ErrorCode.STRING_TOO_LONG, SafetensorsFixture.create().tensor("\uD83D\uDE00".repeat(256) + "x", "U8", 1)
                .build());
    }

    @Test
    void rule12CountsBytesAfterUnescaping() throws Exception {
        // 1024 escaped 'n's are 6144 header bytes but a 1024-byte name
        String escaped = "\\u006e".repeat(1024);
        String json = "{\"" + escaped + "\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}";
        assertEquals(1024, valid(SafetensorsFixture.file(json, 1)).tensors().get(0).name().length());
        String over = "{\"" + escaped + "n\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}";
        fails(ErrorCode.STRING_TOO_LONG, SafetensorsFixture.file(over, 1));
    }

    @Test
    void rule12MetadataKeysToo() throws Exception {
        valid(SafetensorsFixture.create().metadata("k".repeat(1024), "v").build());
        fails(ErrorCode.STRING_TOO_LONG, SafetensorsFixture.create().metadata("k".repeat(1025), "v").build());
    }

    @Test
    void rule13MetadataValuesUpTo64KiB() throws Exception {
        valid(SafetensorsFixture.create().metadata("k", "v".repeat(65_536)).build());
        fails(ErrorCode.STRING_TOO_LONG, SafetensorsFixture.create().metadata("k", "v".repeat(65_537)).build());
        valid(SafetensorsFixture.create().metadata("k", "v".repeat(65_537)).build(), Limits.OFFICIAL);
    }

    @Test
    void rule14AtMost50000RootEntriesMetadataIncluded() throws Exception {
        SafetensorsFixture ok = SafetensorsFixture.create();
        for (int i = 0; i < 50_000; i++) {
            ok.tensor("t" + i, "U8", 1);
        }
        assertEquals(50_000, valid(ok.build()).tensors().size());
        fails(ErrorCode.TOO_MANY_ENTRIES, ok.metadata("k", "v").build());
        valid(ok.build(), Limits.OFFICIAL);
        SafetensorsFixture over = SafetensorsFixture.create();
        for (int i = 0; i < 50_001; i++) {
            over.tensor("t" + i, "U8", 1);
        }
        fails(ErrorCode.TOO_MANY_ENTRIES, over.build());
    }

    @Test
    void rule14AtMost50000MetadataKeys() throws Exception {
        SafetensorsFixture ok = SafetensorsFixture.create();
        for (int i = 0; i < 50_000; i++) {
            ok.metadata("k" + i, "");
        }
        assertEquals(50_000, valid(ok.build()).metadata().size());
        fails(ErrorCode.TOO_MANY_METADATA_KEYS, ok.metadata("one-more", "").build());
    }

    @Test
    void boundsFollowACustomPolicy() throws Exception {
        Limits tight = Limits.builder().maxStringBytes(4).maxEntries(2).maxMetadataKeys(1).build();
        valid(SafetensorsFixture.create().tensor("abcd", "U8", 1).build(), tight);
        fails(ErrorCode.STRING_TOO_LONG, SafetensorsFixture.create().tensor("abcde", "U8", 1).build(), tight);
        fails(ErrorCode.TOO_MANY_ENTRIES, SafetensorsFixture.create().tensor("a", "U8", 1).tensor("b", "U8", 1)
                .tensor("c", "U8", 1).build(), tight);
        fails(ErrorCode.TOO_MANY_METADATA_KEYS, SafetensorsFixture.create().metadata("a", "").metadata("b", "")
                .build(), tight);
    }
}
