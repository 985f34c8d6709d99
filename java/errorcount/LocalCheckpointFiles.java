package errorcount;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager;

/**
 * The query's checkpoint files (spark.sql.streaming.checkpointFileManagerClass in
 * conf/spark-defaults.conf) written through Hadoop's raw local file system: Spark's
 * FileSystem-based manager, without the checksum layer's `.crc` file written and renamed beside
 * every offset-log and commit-log entry (two of each per batch: ~15 ms of a tiny batch's cycle).
 *
 * <p>The job's checkpoint is always a fresh local directory that is never read again after its query
 * (MySQL holds the offsets: errorcount/batch/checkpoint.py), so the checksums guard nothing. Only this
 * manager's file system is raw: setting `fs.file.impl` for the whole session also reached Spark's YARN
 * client, which fails on the raw file system. A path of any other scheme is left as Spark would open it.
 */
public final class LocalCheckpointFiles extends FileSystemBasedCheckpointFileManager {
    public LocalCheckpointFiles(Path path, Configuration conf) {
        super(path, raw(path, conf));
    }

    private static Configuration raw(Path path, Configuration conf) {
        String scheme = path.toUri().getScheme();
        if (scheme != null && !"file".equals(scheme)) {
            return conf;
        }
        Configuration own = new Configuration(conf);
        own.set("fs.file.impl", RawLocalFileSystem.class.getName());
        // Hadoop caches file systems by scheme and user, not by configuration: without this the
        // session's checksummed local file system would be handed back
        own.setBoolean("fs.file.impl.disable.cache", true);
        return own;
    }
}
