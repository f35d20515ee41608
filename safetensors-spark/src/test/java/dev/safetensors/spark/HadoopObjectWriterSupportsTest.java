package dev.safetensors.spark;

import dev.safetensors.Location;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which locations the installed writer claims: those read through Hadoop, never a scheme of the library's own
 * writers, and only where Hadoop has a filesystem for the scheme.
 */
class HadoopObjectWriterSupportsTest {

    @Test
    void theLibrarysSchemesAreLeftToItsWritersAndHadoopsAreClaimed() {
        Configuration before = HadoopFiles.conf();
        try {
            HadoopFiles.use(new Configuration());
            HadoopObjectWriter writer = new HadoopObjectWriter();
            for (String ours : List.of("s3://bucket/m.safetensors", "s3a://bucket/m.safetensors",
                    "gs://bucket/m.safetensors", "file:///tmp/m.safetensors", "/tmp/m.safetensors",
                    "https://example.invalid/m.safetensors", "hf://org/repo/m.safetensors")) {
                assertFalse(writer.supports(Location.parse(ours)), ours);
            }
            assertTrue(writer.supports(Location.parse("hdfs://namenode:8020/out/m.safetensors")));
            // core-default.xml maps ftp to Hadoop's FTP filesystem, and the library has no ftp writer of its own
            assertTrue(writer.supports(Location.parse("ftp://host/out/m.safetensors")));
            assertFalse(writer.supports(Location.parse("nofs://host/out/m.safetensors")), "no filesystem");
            assertFalse(writer.supports(Location.parse("testfs:/tmp/m.safetensors")),
                    "no filesystem is configured for testfs: yet");

            // what a driver's spark.hadoop.fs.testfs.impl installs, read on the next call
            Configuration configured = new Configuration();
            configured.set("fs." + TestSchemeFileSystem.SCHEME + ".impl", TestSchemeFileSystem.class.getName());
            HadoopFiles.use(configured);
            assertTrue(writer.supports(Location.parse("testfs:/tmp/m.safetensors")));
            assertTrue(writer.supports(Location.parse("testfs:///tmp/m.safetensors")));
        } finally {
            HadoopFiles.use(before);
        }
    }
}
