package dev.safetensors.spark;

import org.apache.hadoop.conf.Configuration;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * The driver's Hadoop configuration, shipped to the tasks with the reader factory (a {@link Configuration} is
 * {@code Writable}, not {@link Serializable}), so that a filesystem the user configured ({@code spark.hadoop.fs.*})
 * reads on the executors as it listed on the driver.
 */
final class HadoopConf implements Serializable {
    private static final long serialVersionUID = 1L;

    private final byte[] written;
    private transient Configuration conf;

    private HadoopConf(byte[] written, Configuration conf) {
        this.written = written;
        this.conf = conf;
    }

    /** @return the configuration as captured, as a copy */
    static HadoopConf of(Configuration conf) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            conf.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot capture the Hadoop configuration", e);
        }
        return new HadoopConf(bytes.toByteArray(), conf);
    }

    /** @return the configuration, rebuilt once per JVM copy */
    synchronized Configuration get() {
        if (conf == null) {
            Configuration c = new Configuration(false);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(written))) {
                c.readFields(in);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the shipped Hadoop configuration", e);
            }
            conf = c;
        }
        return conf;
    }
}
