package dev.safetensors.http;

import dev.safetensors.Location;
import dev.safetensors.SourceIdentity;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link HttpSourceProvider#sibling}: a shard named by an index is placed beside it, percent-encoded, and on the Hub
 * pinned to the commit the index was read at, unless its location already names a revision.
 */
class HubSiblingTest {
    private final HttpSourceProvider provider = new HttpSourceProvider();

    private static SourceIdentity at(String commit) {
        return new SourceIdentity(null, null, null, commit, null);
    }

    private String sibling(String index, String name, String commit) {
        return provider.sibling(Location.parse(index), name, at(commit)).text();
    }

    @Test
    void aHubShardIsPinnedToTheCommitItsIndexWasReadAt() {
        assertEquals("hf://acme/repo@abc/x%40y.safetensors",
                sibling("hf://acme/repo/x.safetensors.index.json", "x@y.safetensors", "abc"));
        assertEquals("hf://datasets/acme/d@abc/sub/s.safetensors",
                sibling("hf://datasets/acme/d/sub/x.safetensors.index.json", "s.safetensors", "abc"));
    }

    @Test
    void aRevisionAlreadyWrittenIsKept() {
        assertEquals("hf://acme/repo@v1/s.safetensors",
                sibling("hf://acme/repo@v1/x.safetensors.index.json", "s.safetensors", "abc"));
    }

    @Test
    void anHttpsShardIsBesideItsIndexPercentEncoded() {
        assertEquals("https://h/d/c%3Ad.safetensors", sibling("https://h/d/i.safetensors.index.json",
                "c:d.safetensors", null));
        assertEquals("https://h/d/a%20b%3Fc%23d.safetensors", sibling("https://h/d/i.safetensors.index.json",
                "a b?c#d.safetensors", "abc"), "only the Hub has commits to pin to");
    }
}
