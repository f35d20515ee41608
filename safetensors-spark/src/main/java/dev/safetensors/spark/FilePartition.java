package dev.safetensors.spark;

import org.apache.spark.sql.connector.read.InputPartition;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The groups of files one task reads, held as one byte array: each location front-coded against the one before it
 * (the length it shares with it, then the rest, a char at a time in 7-bit groups: one byte for ASCII, and any
 * string, lone surrogates included, comes back as it was), since a listing's neighbours share their folder. Spark
 * keeps every partition of a scan on the driver for as long as the scan lives, and ships each to its task; a
 * prefix of a million objects as {@link FileGroup}s of strings held about 140 bytes per file there, this about 30
 * (benchmarks/README.md, "A million objects"). The task decodes its groups once, with {@link #groups()}.
 */
final class FilePartition implements InputPartition {
    private static final long serialVersionUID = 1L;

    private final byte[] encoded;
    private final int files;

    /** @param groups the groups, in the order the task reads them */
    FilePartition(List<FileGroup> groups) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + groups.size() * 24);
        int count = 0;
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            String previous = "";
            writeCount(out, groups.size());
            for (FileGroup g : groups) {
                out.writeBoolean(g.index() != null);
                if (g.index() != null) {
                    previous = write(out, previous, g.index());
                }
                writeCount(out, g.files().size());
                for (String f : g.files()) {
                    previous = write(out, previous, f);
                }
                writeCount(out, g.bytes() + 1); // -1 (unknown) and up
                count += g.files().size();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot happen: a byte array output", e);
        }
        this.encoded = bytes.toByteArray();
        this.files = count;
    }

    /** @return the groups, decoded anew on each call */
    List<FileGroup> groups() {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(encoded))) {
            int n = readCount(in);
            List<FileGroup> groups = new ArrayList<>(n);
            String previous = "";
            for (int i = 0; i < n; i++) {
                String index = null;
                if (in.readBoolean()) {
                    index = read(in, previous);
                    previous = index;
                }
                int count = readCount(in);
                List<String> locations = new ArrayList<>(count);
                for (int j = 0; j < count; j++) {
                    previous = read(in, previous);
                    locations.add(previous);
                }
                groups.add(new FileGroup(index, locations, readLongCount(in) - 1));
            }
            return groups;
        } catch (IOException e) {
            throw new UncheckedIOException("a partition's groups do not decode", e);
        }
    }

    /** @return the files the task reads, every group's together */
    int files() {
        return files;
    }

    /** @return the bytes this partition holds on the driver, besides the object's own header */
    int encodedBytes() {
        return encoded.length;
    }

    private static String write(DataOutputStream out, String previous, String location) throws IOException {
        int shared = 0;
        int limit = Math.min(previous.length(), location.length());
        while (shared < limit && previous.charAt(shared) == location.charAt(shared)) {
            shared++;
        }
        writeCount(out, shared);
        writeCount(out, location.length() - shared);
        for (int i = shared; i < location.length(); i++) {
            writeCount(out, location.charAt(i));
        }
        return location;
    }

    private static String read(DataInputStream in, String previous) throws IOException {
        int shared = readCount(in);
        int length = readCount(in);
        StringBuilder s = new StringBuilder(shared + length).append(previous, 0, shared);
        for (int i = 0; i < length; i++) {
            s.append((char) readCount(in));
        }
        return s.toString();
    }

    /** A non-negative count in 7-bit groups, low first: most counts here take one byte. */
    private static void writeCount(DataOutputStream out, long n) throws IOException {
        long v = n;
        while ((v & ~0x7fL) != 0) {
            out.writeByte((int) (v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    private static int readCount(DataInputStream in) throws IOException {
        long v = readLongCount(in);
        if (v > Integer.MAX_VALUE) {
            throw new IOException("a count above 2^31 - 1");
        }
        return (int) v;
    }

    private static long readLongCount(DataInputStream in) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IOException("a count longer than ten bytes");
    }
}
