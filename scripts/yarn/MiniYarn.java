// A real single-node YARN (ResourceManager + one NodeManager) for `make yarn-test`, run by
// scripts/yarn.sh in Java's source-file mode (no build step). No HDFS: the default file system
// is the local one. Usage: MiniYarn WORKDIR CONFDIR
// Writes CONFDIR/yarn-site.xml and core-site.xml (for HADOOP_CONF_DIR / YARN_CONF_DIR) once the
// ResourceManager's ports are bound, then runs until the process is told to stop.
import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

public class MiniYarn {
  private static final String CAPACITY = "yarn.scheduler.capacity.";
  private static final String[][] SETTINGS = {
    {"fs.defaultFS", "file:///"},
    {"yarn.resourcemanager.hostname", "127.0.0.1"},
    {"yarn.nodemanager.hostname", "127.0.0.1"},
    // One queue taking the whole cluster, as in Spark's own YARN tests.
    {"yarn.resourcemanager.scheduler.class",
     "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"},
    {CAPACITY + "root.queues", "default"},
    {CAPACITY + "root.default.capacity", "100"},
    {CAPACITY + "root.default.maximum-capacity", "100"},
    {CAPACITY + "root.default.user-limit-factor", "1"},
    {CAPACITY + "root.default.state", "RUNNING"},
    {CAPACITY + "root.default.acl_submit_applications", "*"},
    {CAPACITY + "root.default.acl_administer_queue", "*"},
    {CAPACITY + "node-locality-delay", "-1"},
    // ApplicationMasters may hold up to 60 % of the memory (YARN's default, 10 %, admits one AM at a
    // time here): a client-mode application starts while a cluster-mode one runs.
    {CAPACITY + "maximum-am-resource-percent", "0.6"},
    {"yarn.nodemanager.resource.cpu-vcores", "4"},
    {"yarn.scheduler.minimum-allocation-mb", "256"},
    // A JVM plus a Python driver reserve far more virtual memory than YARN's 2.1 x default allows.
    {"yarn.nodemanager.vmem-check-enabled", "false"},
    // The RM's cap on attempts: conf/spark-yarn.conf's spark.yarn.maxAppAttempts (4) fits under it.
    {"yarn.resourcemanager.am.max-attempts", "4"},
    // A nearly full disk must not turn the only NodeManager unhealthy.
    {"yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", "99.9"},
    // Keep finished containers' directories and logs for a while, for post-mortems.
    {"yarn.nodemanager.delete.debug-delay-sec", "3600"},
  };

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: MiniYarn WORKDIR CONFDIR");
      System.exit(2);
    }
    File confDir = new File(args[1]);
    confDir.mkdirs();
    // MiniYARNCluster keeps its local, log and work directories under ./target: scripts/yarn-mini.sh
    // starts it with WORKDIR as the current directory.

    YarnConfiguration conf = new YarnConfiguration();
    for (String[] setting : SETTINGS) {
      conf.set(setting[0], setting[1]);
    }
    // Room for two applications at once (containers round up to 256 MB): a cluster-mode AM (driver,
    // 1792 MB) and its executor (1536) beside a client-mode application's AM (1024) and executor,
    // and a failed start's AM until it ends. YARN's accounting, not memory taken: a JVM commits
    // what it uses.
    // MiniYARNCluster gives its NodeManagers this key's memory (4096 by default), not
    // yarn.nodemanager.resource.memory-mb, which it overwrites.
    conf.set("yarn.minicluster.yarn.nodemanager.resource.memory-mb", System.getProperty("yarn.memory.mb", "8192"));

    MiniYARNCluster cluster = new MiniYARNCluster("errorcount-yarn", 1, 1, 1);
    cluster.init(conf);
    cluster.start();
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::stop));

    Configuration live = cluster.getConfig();
    long deadline = System.currentTimeMillis() + 120_000;
    while (live.get(YarnConfiguration.RM_ADDRESS, "").endsWith(":0")) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("the ResourceManager did not bind its port within 120 s");
      }
      Thread.sleep(100);
    }
    write(live, new File(confDir, "yarn-site.xml"));
    Configuration core = new Configuration(false);
    core.set("fs.defaultFS", "file:///");
    write(core, new File(confDir, "core-site.xml"));
    System.err.println("MiniYARNCluster ready: ResourceManager " + live.get(YarnConfiguration.RM_ADDRESS)
        + ", web " + live.get(YarnConfiguration.RM_WEBAPP_ADDRESS) + ", config in " + confDir);
    Thread.currentThread().join();
  }

  // Written to a temporary name and renamed, so a reader never sees half a file.
  private static void write(Configuration conf, File target) throws Exception {
    File tmp = new File(target.getPath() + ".tmp");
    try (OutputStream out = new FileOutputStream(tmp)) {
      conf.writeXml(out);
    }
    Files.move(tmp.toPath(), target.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
