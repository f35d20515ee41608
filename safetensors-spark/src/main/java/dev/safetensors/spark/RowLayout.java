package dev.safetensors.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Places values given by column of the full schema into rows of the columns Spark asked for (column pruning).
 * The values are already in Spark's internal representation.
 */
final class RowLayout {
    private final StructType full;
    private final int[] fromFull;

    RowLayout(StructType full, StructType required) {
        this.full = full;
        this.fromFull = new int[required.fields().length];
        for (int i = 0; i < fromFull.length; i++) {
            fromFull[i] = full.fieldIndex(required.fields()[i].name());
        }
    }

    /** @return the full schema's position of a column */
    int column(String name) {
        return full.fieldIndex(name);
    }

    /** @return whether Spark asked for the column */
    boolean wants(String name) {
        int at = java.util.Arrays.asList(full.fieldNames()).indexOf(name);
        for (int f : fromFull) {
            if (f == at) {
                return true;
            }
        }
        return false;
    }

    Object[] blank() {
        return new Object[full.fields().length];
    }

    InternalRow row(Object[] values) {
        Object[] out = new Object[fromFull.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = values[fromFull[i]];
        }
        return new GenericInternalRow(out);
    }
}
