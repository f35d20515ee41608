package dev.safetensors.examples;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;
import dev.safetensors.TensorInfo;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/** How the inspect examples print a validated header, and what reading it cost. */
final class HeaderListing {
    private HeaderListing() {
    }

    /** Prints the summary line, the metadata, and one line per tensor in data order. */
    static void print(SafetensorsHeader header) {
        System.out.println(header);
        for (Map.Entry<String, String> m : header.metadata().entrySet()) {
            System.out.println("  metadata " + m.getKey() + " = " + m.getValue());
        }
        // tensors() is in data order: the order of their bytes in the file
        for (TensorInfo t : header.tensors()) {
            System.out.printf("  %-24s %-5s %-10s %8d bytes at payload offset %d%n",
                    t.name(), t.dtype(), Arrays.toString(t.shape()), t.byteLength(), t.begin());
        }
    }

    /**
     * Prints how many requests and bytes the source has cost so far (and the HTTP exchanges, when redirects or
     * retries made them more), and the identity it pinned (ETag, version, generation or commit), which every later
     * read of the same source is checked against.
     */
    static void printCost(RandomAccessSource source) {
        SourceStatistics cost = source.statistics();
        System.out.println("  cost: " + cost.requests() + (cost.requests() == 1 ? " request, " : " requests, ")
                + cost.bytesRead() + " bytes"
                + (cost.exchanges() > cost.requests() ? ", " + cost.exchanges() + " HTTP exchanges" : ""));
        Map<String, String> identity = new TreeMap<>(source.attributes());
        if (!identity.isEmpty()) {
            System.out.println("  pinned: " + identity);
        }
    }
}
