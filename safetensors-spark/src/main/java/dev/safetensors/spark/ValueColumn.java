package dev.safetensors.spark;

import dev.safetensors.DType;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;

import java.io.Serializable;

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
