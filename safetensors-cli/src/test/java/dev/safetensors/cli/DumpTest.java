package dev.safetensors.cli;

import dev.safetensors.fixtures.FolderServer;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code dump}: raw bytes, widened floats as text and binary, to stdout or a file. */
class DumpTest {
    @TempDir
    Path dir;

    @Test
    void rawBytesAreTheStoredBytes() throws IOException {
        byte[] file = Fixtures.small().build();
        Path path = Fixtures.write(dir, "m.safetensors", file);
        long payloadStart = file.length - 24 - 8 - 16;
        Cli.Run run = InProcess.run("dump", path.toString(), "bias").exits(0);
        assertArrayEquals(Arrays.copyOfRange(file, (int) payloadStart + 24, (int) payloadStart + 32), run.stdout());

        Path out = dir.resolve("weight.bin");
        Cli.Run toFile = InProcess.run("dump", path.toString(), "weight", "--out", out.toString()).exits(0);
        assertArrayEquals(Arrays.copyOfRange(file, (int) payloadStart, (int) payloadStart + 24),
                Files.readAllBytes(out));
        assertEquals(List.of("wrote 24 bytes of weight F32 [2, 3] to " + out), toFile.outLines());
    }

    @Test
    void f32WidensTheSampleTensorsAsTextAndBinary() throws IOException {
        Path sample = Cli.examples().resolve("sample.safetensors");
        Cli.Run f16 = InProcess.run("dump", "--f32", sample.toString(), "layer0.norm.weight").exits(0);
        assertEquals(List.of("1.0", "1.0", "0.5", "-2.0"), f16.outLines(), f16.describe());
        Cli.Run bf16 = InProcess.run("dump", "--f32", sample.toString(), "layer0.attn.weight").exits(0);
        assertEquals(9, bf16.outLines().size(), bf16.describe());

        Path out = dir.resolve("norm.f32");
        InProcess.run("dump", "--f32", "--binary", sample.toString(), "layer0.norm.weight", "-o", out.toString())
                .exits(0);
        ByteBuffer le = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);
        float[] values = new float[le.remaining() / 4];
        le.asFloatBuffer().get(values);
        assertArrayEquals(new float[] {1.0f, 1.0f, 0.5f, -2.0f}, values);
    }

    @Test
    void wrongTensorOrDtypeIsAUsageErrorAndABrokenFileIsInvalid() {
        Path sample = Cli.examples().resolve("sample.safetensors");
        Cli.Run missing = InProcess.run("dump", sample.toString(), "no.such.tensor").exits(2);
        assertTrue(missing.stderr().contains("no tensor named \"no.such.tensor\" among its 4 tensors; list them"
                + " with 'safetensors inspect --tensors"), missing.describe());
        Cli.Run ints = InProcess.run("dump", "--f32", sample.toString(), "position_ids").exits(2);
        assertTrue(ints.stderr().contains("cannot be read as float32"), ints.describe());
        assertTrue(ints.stderr().contains("without --f32"), ints.describe());

        Path broken = Fixtures.write(dir, "gap.safetensors", SafetensorsFixture.create()
                .tensor("w", "F32", new long[] {1}, 4, 8).build());
        Cli.Run invalid = InProcess.run("dump", broken.toString(), "w").exits(1);
        assertTrue(invalid.errLines().get(0).endsWith("[OFFSETS_GAP]"), invalid.describe());
        Cli.Run json = InProcess.run("dump", "--json", sample.toString(), "embed.weight", "--out",
                dir.resolve("e.bin").toString()).exits(0);
        assertEquals(1, json.json().get(0).get("requests").asInt(), "the header read holds the whole sample, so"
                + " the tensor costs no request of its own\n" + json.describe());
    }

    @Test
    void aRemoteTensorComesInParallelPartsAndTheFlagsAreChecked() throws Exception {
        byte[] payload = new byte[300_000];
        new java.util.Random(3).nextBytes(payload);
        byte[] file = SafetensorsFixture.file(SafetensorsFixture.create().tensor("w", "U8", payload.length)
                .headerJson().getBytes(java.nio.charset.StandardCharsets.UTF_8), payload);
        Fixtures.write(dir, "big.safetensors", file);
        FolderServer server = new FolderServer(dir);
        try {
            String url = server.base().resolve("big.safetensors").toString();
            Path out = dir.resolve("w.bin");
            InProcess.run("dump", "--parallel", "3", "--part-size", "65536", url, "w", "-o", out.toString()).exits(0);
            assertArrayEquals(payload, Files.readAllBytes(out));
            // the header read, then 5 parts of 64 KiB or less for the 300,000 bytes the header read did not hold
            assertTrue(server.requestCount() >= 5, "requests: " + server.requestCount());
        } finally {
            server.close();
        }
        Path local = dir.resolve("big.safetensors");
        Cli.Run zero = InProcess.run("dump", "--parallel", "0", local.toString(), "w", "-o", dir.resolve("x").toString())
                .exits(2);
        assertTrue(zero.stderr().contains("--parallel"), zero.describe());
        Cli.Run odd = InProcess.run("dump", "--part-size", "65537", local.toString(), "w", "-o", dir.resolve("x").toString())
                .exits(2);
        assertTrue(odd.stderr().contains("--part-size"), odd.describe());
    }

    @Test
    void aVerdictNeverGoesIntoTheDataOnStandardOutput() {
        Path broken = Fixtures.write(dir, "gap.safetensors", SafetensorsFixture.create()
                .tensor("w", "F32", new long[] {1}, 4, 8).build());
        for (List<String> flags : List.of(List.of("--f32", "--binary"), List.of("--f32"), List.<String>of())) {
            List<String> args = new java.util.ArrayList<>(List.of("dump"));
            args.addAll(flags);
            args.addAll(List.of(broken.toString(), "w"));
            Cli.Run run = InProcess.run(args.toArray(String[]::new)).exits(1);
            assertEquals(0, run.stdout().length, "the data output holds no verdict\n" + run.describe());
            assertTrue(run.stderr().contains("[OFFSETS_GAP]"), run.describe());
        }
    }

    @Test
    void f32OfATensorOverTheFloatBoundIsRefusedWithItsCodeAndTheWayForward() throws IOException {
        long elements = dev.safetensors.Limits.STRICT.maxFloat32Elements() + 1;
        Path big = Fixtures.sparse(dir.resolve("big.safetensors"), "{\"big\":{\"dtype\":\"F16\",\"shape\":["
                + elements + "],\"data_offsets\":[0," + 2 * elements + "]}}", 2 * elements);
        Path out = dir.resolve("big.f32");
        Cli.Run run = InProcess.run("dump", "--f32", "--binary", big.toString(), "big", "--out", out.toString())
                .exits(2);
        assertTrue(run.stderr().contains("[TOO_MANY_ELEMENTS]"), run.describe());
        assertTrue(run.stderr().contains("without --f32") && run.stderr().contains("--out"), run.describe());
        assertTrue(Files.notExists(out), "nothing is left under the output's name");

        Cli.Run json = InProcess.run("dump", "--json", "--f32", big.toString(), "big", "--out", out.toString())
                .exits(2);
        assertEquals(1, json.json().size(), json.describe());
        assertEquals("TOO_MANY_ELEMENTS", json.json().get(0).get("code").asString(), json.describe());
    }

    @Test
    void everyJsonFailurePrintsOneObject() {
        Path sample = Cli.examples().resolve("sample.safetensors");
        Path out = dir.resolve("x.bin");
        Cli.Run missing = InProcess.run("dump", "--json", sample.toString(), "no.such.tensor", "--out", out.toString())
                .exits(2);
        assertEquals(1, missing.json().size(), missing.describe());
        assertEquals("TENSOR_NOT_FOUND", missing.json().get(0).get("code").asString(), missing.describe());
        Cli.Run ints = InProcess.run("dump", "--json", "--f32", sample.toString(), "position_ids", "--out",
                out.toString()).exits(2);
        assertEquals("NOT_FLOAT_READABLE", ints.json().get(0).get("code").asString(), ints.describe());
        Path blocked = Fixtures.write(dir, "file", "not a folder");
        Cli.Run unwritable = InProcess.run("dump", "--json", sample.toString(), "embed.weight", "--out",
                blocked.resolve("e.bin").toString()).exits(3);
        assertEquals(1, unwritable.json().size(), unwritable.describe());
        assertEquals("WRITE_FAILED", unwritable.json().get(0).get("code").asString(), unwritable.describe());
    }
}
