"""Talking to the local MiniYARNCluster the way an operator would: scripts/submit-yarn.sh,
scripts/stop-yarn.sh and Hadoop's own `yarn` client (scripts/hadoop-cli.sh), the
ResourceManager's REST API for states and attempts (what `yarn application -status` reads: the
tests poll them, and each `yarn` command is a client JVM, ~2 s and ~3 s of CPU on the two cores the
cluster and the job share), plus the NodeManager's container log directories for the drivers' logs."""

import functools
import json
import os
import shutil
import subprocess
import urllib.request
from pathlib import Path
from xml.etree import ElementTree

import pyspark

from errorcount.tools import kafka_admin
from tests.support import APP_PASSWORD_FILE, LOGS, ROOT, SHORT_JIT, local_stack, wait_until

CONF_DIR = ROOT / ".local" / "yarn" / "conf"
NM_LOGS = ROOT / ".local" / "yarn" / "target"
SPARK_JARS = Path(pyspark.__file__).parent / "jars"
# A zone with a half-hour offset: minute keys must not move with the containers' local time.
CONTAINER_TZ = "Asia/Kolkata"


def java_home() -> str:
    return str(Path(shutil.which("java")).resolve().parent.parent)


def job_env(job: str, topic: str, marker: Path, **settings: str) -> dict[str, str]:
    """The submitter's environment: job settings (resolved into the shipped config by
    submit-yarn.sh), the cluster, and the password as a file path, never a value in argv."""
    extra = [f"--conf spark.yarn.stagingDir=file://{ROOT}/.local/yarn/staging",
             f"--conf spark.yarn.appMasterEnv.TZ={CONTAINER_TZ}", f"--conf spark.executorEnv.TZ={CONTAINER_TZ}",
             "--conf spark.executor.cores=1", "--conf spark.ui.enabled=false",
             # the containers' JVMs (the AM's driver, the executors) on the JIT's first tier, as every test JVM
             f"--conf spark.yarn.appMasterEnv.JAVA_TOOL_OPTIONS={SHORT_JIT}",
             f"--conf spark.executorEnv.JAVA_TOOL_OPTIONS={SHORT_JIT}"]
    return {**os.environ, "SPARK_SUBMIT_OPTS": SHORT_JIT, "HADOOP_CONF_DIR": str(CONF_DIR), "YARN_JAVA_HOME": java_home(),
            "SPARK_YARN_JARS": f"local:{SPARK_JARS}/*", "SPARK_SUBMIT_EXTRA": " ".join(extra),
            "JOB_NAME": job, "KAFKA_TOPIC": topic, "KAFKA_BOOTSTRAP_SERVERS": kafka_admin.bootstrap(),
            "MYSQL_PORT": local_stack()["MYSQL_PORT"], "MYSQL_PASSWORD_FILE": str(APP_PASSWORD_FILE),
            "STOP_MARKER": f"file://{marker}", "TRIGGER_INTERVAL": "1 second",
            "COUNT_LINES": "false",  # as drivers.driver_env: the expected counts are the ERROR lines'
            **settings}


@functools.cache  # read once: the tests poll through it, and the cluster runs for the whole session
def rm_webapp() -> str:
    """The ResourceManager's web address (host:port) from the cluster's client configuration."""
    for prop in ElementTree.parse(CONF_DIR / "yarn-site.xml").getroot().iter("property"):
        if prop.findtext("name") == "yarn.resourcemanager.webapp.address":
            return str(prop.findtext("value"))
    raise AssertionError(f"no yarn.resourcemanager.webapp.address in {CONF_DIR / 'yarn-site.xml'}")


class YarnApps:
    def rest(self, path: str) -> dict:
        """GET /ws/v1/cluster/PATH of the ResourceManager's REST API, as JSON."""
        with urllib.request.urlopen(f"http://{rm_webapp()}/ws/v1/cluster/{path}", timeout=30) as answer:
            return json.load(answer)

    def cli(self, *args: str) -> str:
        result = subprocess.run([str(ROOT / "scripts" / "hadoop-cli.sh"), "yarn", *args], capture_output=True,
                                text=True, timeout=120, env={**os.environ, "HADOOP_CONF_DIR": str(CONF_DIR)})
        assert result.returncode == 0, (f"yarn {' '.join(args)} exited {result.returncode}:\n{result.stderr[-2000:]}"
                                        f"\n{result.stdout[-2000:]}")
        return result.stdout

    def run_script(self, script: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
        LOGS.mkdir(parents=True, exist_ok=True)
        result = subprocess.run([str(ROOT / "scripts" / script), *args], env=env, capture_output=True, text=True,
                                timeout=600)
        with (LOGS / f"{script}-{env['JOB_NAME']}.log").open("a") as log:
            log.write(result.stderr)
        return result

    def submit(self, env: dict[str, str], *args: str) -> str:
        result = self.run_script("submit-yarn.sh", env, *args)
        assert result.returncode == 0, f"submit-yarn.sh failed:\n{result.stderr[-3000:]}"
        return result.stdout.strip().splitlines()[-1]

    def state(self, app: str) -> tuple[str, str]:
        """(State, Final-State) as `yarn application -status` reports them (RUNNING, UNDEFINED; ...)."""
        found = self.rest(f"apps/{app}")["app"]
        return found["state"], found["finalStatus"]

    def node_of(self, app: str, container: str) -> str:
        """The host of the NodeManager running an attempt's AM container, as YARN names the node (its
        NodeId), from the ResourceManager's REST API: `yarn container -status`, a JVM of its own,
        once exited non-zero with nothing on stderr while the container ran (a CI run of 2026-12-07)."""
        def found() -> str | None:
            for attempt in self.attempts_listed(app):
                if attempt.get("containerId") == container and attempt.get("nodeId"):
                    return str(attempt["nodeId"]).rpartition(":")[0]
            return None
        return wait_until(found, 60, f"the ResourceManager to name the node of {container}")

    def attempts_listed(self, app: str) -> list[dict]:
        """The ResourceManager's attempts of `app` as its REST API lists them (none yet: [])."""
        return (self.rest(f"apps/{app}/appattempts").get("appAttempts") or {}).get("appAttempt") or []

    def attempts(self, app: str) -> list[tuple[str, str, str]]:
        """[(attempt id, state, AM container id)] of the attempts that have their AM container, as
        `yarn applicationattempt -list` lists them (an attempt still waiting for one is not yet listed)."""
        return sorted((a["appAttemptId"], a["appAttemptState"], a["containerId"]) for a in self.attempts_listed(app)
                      if str(a.get("containerId", "")).startswith("container_"))

    def wait_state(self, app: str, states: tuple[str, ...], timeout: float) -> tuple[str, str]:
        def reached():
            state = self.state(app)
            return state if state[0] in states else None
        return wait_until(reached, timeout, f"{app} to reach {'/'.join(states)}")

    def driver_log(self, container: str) -> str:
        """The Python driver's rolling log (errorcount-driver.log) in the AM container's log dir."""
        paths = list(NM_LOGS.glob(f"**/{container}/errorcount-driver.log"))
        return paths[0].read_text(encoding="utf-8", errors="replace") if paths else ""

    def app_logs(self, app: str) -> str:
        """Every file the NodeManager keeps for the application's containers: launch scripts (the
        environment and command lines), directory listings, stdout/stderr, Spark's and the driver's logs."""
        files = [p for d in NM_LOGS.glob(f"**/*logDir*/{app}") for p in d.rglob("*") if p.is_file()]
        assert files, f"no container logs of {app} under {NM_LOGS}"
        return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)

    def kill_container(self, container: str) -> None:
        """What a node's OOM killer or a crash does: SIGKILL to every process of the container
        (its JVM and the Python driver it started), through the NodeManager."""
        self.cli("container", "-signal", container, "FORCEFUL_SHUTDOWN")
