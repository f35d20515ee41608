package dev.safetensors.http;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class HubPathTest {
    private static final URI HUB = URI.create("https://huggingface.co");

    @Test
    void aFileReferenceDefaultsToMain() throws Exception {
        HubPath p = HubPath.parse(URI.create("hf://acme/repo/dir/model.safetensors"));
        assertEquals(new HubPath("acme", "repo", "dir/model.safetensors", "main"), p);
        assertEquals(URI.create("https://huggingface.co/acme/repo/resolve/main/dir/model.safetensors"),
                p.resolveUrl(HUB));
    }

    @Test
    void aRevisionWithSlashesIsOneEncodedSegment() throws Exception {
        HubPath p = HubPath.parse(URI.create("hf://acme/repo/model.safetensors@refs/pr/7"));
        assertEquals("refs/pr/7", p.revision());
        assertEquals(URI.create("https://huggingface.co/acme/repo/resolve/refs%2Fpr%2F7/model.safetensors"),
                p.resolveUrl(HUB));
    }

    @Test
    void aRepositoryReferenceHasNoPath() throws Exception {
        assertEquals(new HubPath("acme", "repo", "", "v1.0"), HubPath.parse(URI.create("hf://acme/repo@v1.0")));
        assertEquals(new HubPath("acme", "repo", "", "main"), HubPath.parse(URI.create("hf://acme/repo")));
    }

    @Test
    void anEncodedAtSignBelongsToTheFileName() throws Exception {
        HubPath p = HubPath.parse(URI.create("hf://acme/repo/a%40b.safetensors"));
        assertEquals("a@b.safetensors", p.path());
        assertEquals(p, HubPath.parse(p.toUri()));
        assertEquals(URI.create("https://huggingface.co/acme/repo/resolve/main/a%40b.safetensors"), p.resolveUrl(HUB));
    }

    @Test
    void anEndpointPathPrefixIsKept() throws Exception {
        HubPath p = HubPath.parse(URI.create("hf://acme/repo/m.safetensors"));
        assertEquals(URI.create("http://127.0.0.1:8080/mirror/acme/repo/resolve/main/m.safetensors"),
                p.resolveUrl(URI.create("http://127.0.0.1:8080/mirror")));
    }

    @Test
    void malformedReferencesAreRejected() {
        for (String bad : List.of("hf://acme", "hf://acme/", "hf://acme/repo/../x@main", "hf://acme/repo/a//b",
                "hf://acme/repo/x@", "hf://acme/repo/x@..", "hf://user@acme/repo/x", "hf://acme:1/repo/x",
                "hf://acme/repo/x?token=1", "hf://acme/repo/x#f", "hf://ac..me/repo/x", "hf:acme/repo",
                "hf://acme/repo/a%5Cb", "hf://acme/repo/a%0Ab")) {
            assertThrows(IOException.class, () -> HubPath.parse(URI.create(bad)), bad);
        }
    }
}
