package dev.safetensors.spark;

import dev.safetensors.DType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;

import org.apache.spark.sql.types.StructType;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A column written as tensors: a numeric array (one element per value) or a numeric scalar, and the dtype its values
 * become.
 *
 * @param index   its position in the rows
 * @param name    its name, the tensor's name (samples) or suffix (keyed)
 * @param element the Spark type of its values
 * @param scalar  whether each row holds one value rather than an array
 * @param dtype   the safetensors dtype written
 */
record ValueColumn(int index, String name, DataType element, boolean scalar, DType dtype) implements Serializable {

    /** @return the column's values in a row: its array, or its scalar as an array of one */
    ArrayData values(InternalRow row) {
        return scalar ? new GenericArrayData(new Object[]{row.get(index, element)}) : row.getArray(index);
    }

    /**
     * @param skip the position of a column that holds no values (the key), or -1
     * @return every other column as a value column, checked on the driver
     * @throws IllegalArgumentException if one is not numeric, or there is none
     */
    static List<ValueColumn> all(StructType schema, WriteOptions options, int skip) {
        List<ValueColumn> out = new ArrayList<>();
        for (int i = 0; i < schema.fields().length; i++) {
            if (i != skip) {
                out.add(of(i, schema.fields()[i], options));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("layout " + options.layout().name().toLowerCase(Locale.ROOT)
                    + " needs a numeric column" + (skip < 0 ? "" : " beside the key"));
        }
        return List.copyOf(out);
    }

    /**
     * @throws IllegalArgumentException if the column is not numeric, or its values cannot become the dtype asked for
     */
    static ValueColumn of(int index, StructField field, WriteOptions options) {
        DataType t = field.dataType();
        boolean scalar = !(t instanceof ArrayType);
        DataType element = scalar ? t : ((ArrayType) t).elementType();
        DType asked = options.dtypeOf(field.name());
        DType dtype = asked != null ? asked : ElementEncoding.natural(element);
        if (!ElementEncoding.accepts(element, dtype)) {
            throw new IllegalArgumentException("column " + field.name() + " is " + t.simpleString() + "; its values"
                    + " cannot be written as " + dtype + " (numeric arrays or scalars only; floats never become"
                    + " integers; Spark ML vectors: vector_to_array(column) first)");
        }
        return new ValueColumn(index, field.name(), element, scalar, dtype);
    }
}
