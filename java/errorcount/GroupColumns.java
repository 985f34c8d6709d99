package errorcount;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One task's groups as columns of OnePass.SCHEMA, emitted either as Spark rows (the recount's
 * DataFrame, which Spark filters) or as one Arrow IPC stream (the batch's: the driver reads it as
 * it is). The Arrow stream skips what Spark's own path costs per group: a row of boxed values,
 * Spark's projection of it into an UnsafeRow and its Arrow writer reading that back, ~1.5 us a
 * group, and a batch counting every line by a GROUP_BY has ~30 000 groups (docs/performance.md,
 * "Counting every line").
 *
 * <p>Each column is an array in SCHEMA's order: a string or binary column byte[][] (null: null),
 * an int column int[] (GroupTable.NONE: null), a bigint column long[] (GroupTable.NO_LONG: null).
 */
final class GroupColumns {
    private static final long ALLOCATION_LIMIT = Long.MAX_VALUE;  // the task's own rows: bounded by its groups

    private final StructType schema;
    private final Object[] columns;
    private final int size;

    GroupColumns(StructType schema, Object[] columns, int size) {
        if (columns.length != schema.fields().length) {
            throw new IllegalArgumentException("a column per field of " + schema.simpleString());
        }
        this.schema = schema;
        this.columns = columns;
        this.size = size;
    }

    /** The groups as Spark rows. */
    Iterator<InternalRow> rows() {
        List<InternalRow> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            Object[] values = new Object[columns.length];
            for (int c = 0; c < columns.length; c++) {
                values[c] = value(c, i);
            }
            out.add(new GenericInternalRow(values));
        }
        return out.iterator();
    }

    private Object value(int c, int i) {
        Object column = columns[c];
        if (column instanceof int[]) {
            int v = ((int[]) column)[i];
            return v == GroupTable.NONE ? null : v;
        }
        if (column instanceof long[]) {
            long v = ((long[]) column)[i];
            return v == GroupTable.NO_LONG ? null : v;
        }
        byte[] v = ((byte[][]) column)[i];
        return v == null || schema.fields()[c].dataType() instanceof BinaryType ? v : UTF8String.fromBytes(v);
    }

    /** The groups as one Arrow IPC stream (schema, one record batch, end), pyarrow.ipc.open_stream's. */
    byte[] arrow() {
        try (BufferAllocator allocator = ArrowUtils.rootAllocator().newChildAllocator("errorcount-groups", 0, ALLOCATION_LIMIT)) {
            List<FieldVector> vectors = new ArrayList<>(columns.length);
            try {
                for (int c = 0; c < columns.length; c++) {
                    vectors.add(vector(schema.fields()[c], columns[c], allocator));
                }
                ByteArrayOutputStream out = new ByteArrayOutputStream(64 + size * 64);
                try (VectorSchemaRoot root = new VectorSchemaRoot(vectors);
                     ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
                    vectors = List.of();  // the root closes them now
                    root.setRowCount(size);
                    writer.start();
                    writer.writeBatch();
                    writer.end();
                }
                return out.toByteArray();
            } finally {
                vectors.forEach(FieldVector::close);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private FieldVector vector(StructField field, Object column, BufferAllocator allocator) {
        String name = field.name();
        if (field.dataType() instanceof IntegerType) {
            IntVector v = new IntVector(name, allocator);
            v.allocateNew(size);
            int[] values = (int[]) column;
            for (int i = 0; i < size; i++) {
                if (values[i] != GroupTable.NONE) {
                    v.set(i, values[i]);
                }
            }
            v.setValueCount(size);
            return v;
        }
        if (field.dataType() instanceof LongType) {
            BigIntVector v = new BigIntVector(name, allocator);
            v.allocateNew(size);
            long[] values = (long[]) column;
            for (int i = 0; i < size; i++) {
                if (values[i] != GroupTable.NO_LONG) {
                    v.set(i, values[i]);
                }
            }
            v.setValueCount(size);
            return v;
        }
        BaseVariableWidthVector v = field.dataType() instanceof StringType
                ? new VarCharVector(name, allocator) : new VarBinaryVector(name, allocator);
        byte[][] values = (byte[][]) column;
        long bytes = 0;
        for (byte[] value : values) {
            bytes += value == null ? 0 : value.length;
        }
        v.allocateNew(bytes, size);
        for (int i = 0; i < size; i++) {
            if (values[i] != null) {
                v.set(i, values[i]);
            }
        }
        v.setValueCount(size);
        return v;
    }
}
