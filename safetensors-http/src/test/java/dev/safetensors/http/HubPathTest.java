package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.http.HubPath.RepoType;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cases mirror huggingface_hub's parse_hf_uri (behind HfFileSystem.resolve_path). */
class HubPathTest {
    private static final URI HUB = URI.create("https://huggingface.co");

    private static HubPath parse(String s) throws Exception {
        return HubPath.parse(URI.create(s));
    }

    @Test
    void aFileReferenceDefaultsToAModelAtMain() throws Exception {
        HubPath p = parse("hf://acme/repo/dir/model.safetensors");
        assertEquals(new HubPath(RepoType.MODEL, "acme", "repo", "dir/model.safetensors", "main"), p);
        assertEquals(URI.create("https://huggingface.co/acme/repo/resolve/main/dir/model.safetensors"),
                p.resolveUrl(HUB));
        assertEquals(p, parse("hf://models/acme/repo/dir/model.safetensors"));
    }

    @Test
    void theRevisionFollowsTheRepository() throws Exception {
        assertEquals(new HubPath(RepoType.MODEL, "acme", "repo", "a/b/m.safetensors", "v1.0"),
                parse("hf://acme/repo@v1.0/a/b/m.safetensors"));
        String commit = "0123456789abcdef0123456789abcdef01234567";
        assertEquals(new HubPath(RepoType.MODEL, "acme", "repo", "m.safetensors", commit),
                parse("hf://acme/repo@" + commit + "/m.safetensors"));
    }

    @Test
    void pullRequestRefsAreReadEncodedOrWhole() throws Exception {
        HubPath encoded = parse("hf://acme/repo@refs%2Fpr%2F1/model.safetensors");
        assertEquals(new HubPath(RepoType.MODEL, "acme", "repo", "model.safetensors", "refs/pr/1"), encoded);
        assertEquals(encoded, parse("hf://acme/repo@refs/pr/1/model.safetensors"));
        assertEquals(URI.create("https://huggingface.co/acme/repo/resolve/refs%2Fpr%2F1/model.safetensors"),
                encoded.resolveUrl(HUB));
        assertEquals("refs/convert/parquet", parse("hf://datasets/acme/d@refs/convert/parquet/x").revision());
        assertEquals("feature/x", parse("hf://acme/repo@feature%2Fx/m.safetensors").revision());
        // unencoded, an ordinary branch name ends at the first slash
        assertEquals(new HubPath(RepoType.MODEL, "acme", "repo", "x/m.safetensors", "feature"),
                parse("hf://acme/repo@feature/x/m.safetensors"));
    }

    @Test
    void datasetsAndSpacesResolveUnderTheirPrefix() throws Exception {
        HubPath d = parse("hf://datasets/acme/data@v2/train/part.safetensors");
        assertEquals(new HubPath(RepoType.DATASET, "acme", "data", "train/part.safetensors", "v2"), d);
        assertEquals(URI.create("https://huggingface.co/datasets/acme/data/resolve/v2/train/part.safetensors"),
                d.resolveUrl(HUB));
        HubPath s = parse("hf://spaces/acme/demo/m.safetensors");
        assertEquals(URI.create("https://huggingface.co/spaces/acme/demo/resolve/main/m.safetensors"),
                s.resolveUrl(HUB));
        // a namespace that is merely called like a type is read as a type, as HfFileSystem does
        assertEquals(RepoType.DATASET, parse("hf://datasets/x/y").type());
    }

    @Test
    void anAtSignInAFileNameBelongsToTheFile() throws Exception {
        HubPath p = parse("hf://acme/repo/weights/a@b.bin");
        assertEquals(new HubPath(RepoType.MODEL, "acme", "repo", "weights/a@b.bin", "main"), p);
        assertEquals("a@b.safetensors", parse("hf://acme/repo/a%40b.safetensors").path());
        assertEquals("dir@1/a@b.safetensors", parse("hf://acme/repo@v1/dir@1/a@b.safetensors").path());
        assertEquals(URI.create("https://huggingface.co/acme/repo/resolve/main/weights/a%40b.bin"), p.resolveUrl(HUB));
    }

    @Test
    void everyReferenceRoundTripsThroughItsUri() throws Exception {
        for (String s : List.of("hf://acme/repo", "hf://acme/repo@refs%2Fpr%2F7/x/y.safetensors",
                "hf://datasets/acme/d@v1/a@b c.json".replace(" ", "%20"), "hf://spaces/acme/s/m.safetensors",
                "hf://acme/repo@feature%2Fx")) {
            HubPath p = parse(s);
            assertEquals(p, HubPath.parse(p.toUri()), s);
        }
        assertEquals(URI.create("hf://datasets/acme/d@refs%2Fpr%2F2/x.safetensors"),
                parse("hf://datasets/acme/d@refs/pr/2/x.safetensors").toUri());
    }

    @Test
    void aRepositoryReferenceHasNoPath() throws Exception {
        assertEquals(new HubPath(RepoType.MODEL, "acme", "repo", "", "v1.0"), parse("hf://acme/repo@v1.0"));
        assertEquals(new HubPath(RepoType.MODEL, "acme", "repo", "", "main"), parse("hf://acme/repo"));
        assertEquals(new HubPath(RepoType.MODEL, "acme", "repo", "", "main"), parse("hf://acme/repo/"));
    }

    @Test
    void oneTrailingSlashNamesAFolder() throws Exception {
        assertEquals(new HubPath(RepoType.MODEL, "acme", "tiny", "sub", "main"), parse("hf://acme/tiny@main/sub/"));
        assertEquals(new HubPath(RepoType.MODEL, "acme", "tiny", "sub", "main"), parse("hf://acme/tiny/sub/"));
        assertEquals(new HubPath(RepoType.DATASET, "acme", "d", "a/b", "refs/pr/1"),
                parse("hf://datasets/acme/d@refs/pr/1/a/b/"));
        assertEquals(new HubPath(RepoType.MODEL, "acme", "tiny", "", "v1"), parse("hf://acme/tiny@v1/"));
        for (String bad : List.of("hf://acme/tiny@main/sub//", "hf://acme/tiny/sub//", "hf://acme/tiny@main//")) {
            InvalidLocationException e = assertThrows(InvalidLocationException.class, () -> parse(bad), bad);
            assertEquals(ErrorCode.INVALID_SOURCE, e.code(), bad);
        }
    }

    @Test
    void anEndpointPathPrefixIsKept() throws Exception {
        HubPath p = parse("hf://acme/repo/m.safetensors");
        assertEquals(URI.create("http://127.0.0.1:8080/mirror/acme/repo/resolve/main/m.safetensors"),
                p.resolveUrl(URI.create("http://127.0.0.1:8080/mirror")));
    }

    @Test
    void theTrailingRevisionOfEarlierVersionsIsRefusedWithTheNewForm() {
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> parse("hf://acme/repo/dir/model.safetensors@v1"));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertTrue(e.getMessage().contains("hf://acme/repo@v1/dir/model.safetensors"), e.getMessage());
        InvalidLocationException d = assertThrows(InvalidLocationException.class,
                () -> parse("hf://datasets/acme/d/m.safetensors.index.json@main"));
        assertTrue(d.getMessage().contains("hf://datasets/acme/d@main/m.safetensors.index.json"), d.getMessage());
    }

    @Test
    void malformedReferencesAreInvalidSources() {
        for (String bad : List.of("hf://acme", "hf://acme/", "hf://gpt2@main", "hf://datasets", "hf://datasets/acme",
                "hf://dataset/acme/d", "hf://kernels/acme/k", "hf://buckets/acme/b/x", "hf://acme/repo@",
                "hf://acme/repo@/x", "hf://@main/x", "hf://acme/repo@../x", "hf://acme/repo@refs/pr/1x",
                "hf://acme/repo/../x", "hf://acme/repo/a//b", "hf://acme/repo/./b", "hf://user@acme/repo/x",
                "hf://acme:1/repo/x", "hf://acme/repo/x?token=1", "hf://acme/repo/x#f", "hf://ac..me/repo/x",
                "hf://acme/re--po/x", "hf://acme/-repo/x", "hf://acme/repo.git/x", "hf:acme/repo",
                "hf://acme/repo/a%5Cb", "hf://acme/repo/a%0Ab", "hf://acme/repo@a%0Ab/x",
                "hf://acme/" + "r".repeat(97))) {
            InvalidLocationException e = assertThrows(InvalidLocationException.class, () -> parse(bad), bad);
            assertEquals(ErrorCode.INVALID_SOURCE, e.code(), bad);
        }
    }
}
