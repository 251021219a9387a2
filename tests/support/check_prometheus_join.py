#!/usr/bin/env python3
"""cudacheck's Prometheus series join NVIDIA dcgm-exporter's on the GPU and the node,
through Prometheus's own rule evaluator: `promtool test rules`.

Usage: check_prometheus_join.py CUDACHECK_BINARY SOURCE_DIR

The cudacheck side is the built binary's `render --format prometheus` of a report recorded on an
H200 (docs/examples/h200/cudacheck.json), with the host.node_name (schema 1.9.0) that a run of the
binary here records with NODE_NAME set, as the DaemonSet's downward API sets it; rendered with no
NODE_NAME: the report, not the process rendering it, names the node. The dcgm-exporter side is its exposition for the same GPU, written line for
line as dcgm-exporter writes it (see DCGM_OLD / DCGM_NEW below). Each becomes promtool
input_series; PromQL that joins them `on(UUID, Hostname)` (dcgm-exporter up to 4.5.3-4.8.2) and
`on(UUID, hostname)` (4.6.0-4.8.3 and later), and a recording rule built on such a join, must
give exactly the samples this script expects.

Then the control: the same report with another node's node_name, rendered here with NODE_NAME set
to this node, must not join (a report names the node that ran it): promtool must fail. So a break
in the labels (a renamed label, NODE_NAME not recorded or taken from the renderer) fails this test,
and the test is shown to be able to fail.

The DaemonSet in SOURCE_DIR/deploy/kubernetes must set NODE_NAME from the downward API's
spec.nodeName, as dcgm-exporter's manifests do (checked where PyYAML is installed).

promtool: PROMTOOL, else promtool on PATH, else the copy tools/install-deps.sh unpacks under
tests/fixtures/downloaded/promtool. Exit 77 (skipped) without it, 1 on any failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

NODE = "h200-node-07"  # the Kubernetes node's name, as spec.nodeName gives it

# dcgm-exporter's exposition of the recorded H200 (UUID, PCI bus id, model and driver from
# docs/examples/h200/cudacheck.json), in its own words:
# - the sample line is the gpuMetricsFormat template of internal/pkg/rendermetrics/render_metrics.go
#   (NVIDIA/dcgm-exporter tag 4.5.3-4.8.2): gpu, UUID, pci_bus_id, device, modelName, then
#   Hostname, then its labels (DCGM_FI_DRIVER_VERSION, a "label" row of etc/default-counters.csv)
#   and attributes (Kubernetes mode: container, namespace, pod of the pod that holds the GPU,
#   internal/pkg/transformation/const.go), each group in key order as Go templates range over maps;
#   internal/pkg/server/server_test.go's expectedResponse is one such line:
#   TEST_METRIC{gpu="0",UUID="GPU-00000000-0000-0000-0000-000000000000",pci_bus_id="",device="nvidia0",modelName="NVIDIA T400 4GB",Hostname="testhost"} 42
#   and is kept below, as it is, for a GPU of another node that must join with nothing;
# - HELP texts from etc/default-counters.csv;
# - the host label's value is NODE_NAME when set (internal/pkg/hostname/hostname.go), which its
#   DaemonSet sets from spec.nodeName (dcgm-exporter.yaml; deployment/templates/daemonset.yaml).
# From 4.6.0-4.8.3 ("Rename Hostname label to hostname (#655)") the same line says `hostname`.
GPU = ('gpu="0",UUID="GPU-bb9114cd-27cc-92a9-e3bc-10e3091ac543",pci_bus_id="00000000:00:06.0",device="nvidia0",modelName="NVIDIA H200",'
       '{host}="' + NODE + '",DCGM_FI_DRIVER_VERSION="580.159.04",container="trainer",namespace="ml",pod="llm-train-0"')
DCGM_TEMPLATE = """# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{{{gpu}}} 33
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{{{gpu}}} 120.5
# HELP TEST_METRIC
# TYPE TEST_METRIC gauge
TEST_METRIC{{gpu="0",UUID="GPU-00000000-0000-0000-0000-000000000000",pci_bus_id="",device="nvidia0",modelName="NVIDIA T400 4GB",{host}="testhost"}} 42
"""
DCGM_OLD = DCGM_TEMPLATE.format(gpu=GPU.format(host="Hostname"), host="Hostname")
DCGM_NEW = DCGM_TEMPLATE.format(gpu=GPU.format(host="hostname"), host="hostname")

def promtool():
    candidates = [os.environ.get("PROMTOOL"), shutil.which("promtool"),
                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "downloaded", "promtool", "usr", "bin", "promtool")]
    return next((path for path in candidates if path and os.access(path, os.X_OK)), None)


def input_series(exposition):
    """promtool's input_series from an exposition: one series per sample line, its one value at time 0."""
    series = []
    for line in exposition.splitlines():
        if not line or line.startswith("#"):
            continue
        name_and_labels, value = line.rsplit(" ", 1)
        series.append({"series": name_and_labels, "values": value})
    return series


def recorded_node_name(binary, node_name):
    """host.node_name of a real run of the binary with NODE_NAME set."""
    environment = dict(os.environ, NODE_NAME=node_name)
    result = subprocess.run([binary, "--only", "host.os", "--format", "json"], capture_output=True, text=True, timeout=60, env=environment)
    if result.returncode not in (0, 1):
        raise SystemExit(f"cudacheck --only host.os exited {result.returncode}: {result.stderr}")
    return json.loads(result.stdout)["host"].get("node_name")


def render(binary, report_path, node_name=None):
    environment = dict(os.environ)
    environment.pop("NODE_NAME", None)
    if node_name is not None:
        environment["NODE_NAME"] = node_name
    result = subprocess.run([binary, "render", report_path, "--format", "prometheus"], capture_output=True, text=True, timeout=60, env=environment)
    if result.returncode != 0:
        raise SystemExit(f"cudacheck render exited {result.returncode}: {result.stderr}")
    return result.stdout


def cudacheck_labels(host_label, host, **more):
    """cudacheck_gemm_tflops's labels for the recorded GPU, as dcgm-exporter's join sees them."""
    labels = {"check": "cublas.gemm", "gpu": "0", "UUID": "GPU-bb9114cd-27cc-92a9-e3bc-10e3091ac543", "pci_bus_id": "00000000:00:06.0",
              "hostname": host, "Hostname": host, "level": "standard", "precision": "bf16", "size": "8192"}
    labels.update(more)
    return "{" + ",".join(f'{key}="{value}"' for key, value in labels.items()) + "}"


def rules_test(cudacheck_text, dcgm_text, host_label, rules_file, bf16_tflops):
    """A promtool unit test: both expositions as input, joins on UUID and host_label, exact expected output."""
    join = f"on(UUID, {host_label})"
    dcgm_labels = "{" + GPU.format(host=host_label) + "}"
    return {
        "rule_files": [rules_file],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            "input_series": input_series(cudacheck_text) + input_series(dcgm_text),
            "promql_expr_test": [
                {   # cudacheck's figure with dcgm-exporter's model name (x 1 keeps the TFLOP/s): docs/cli.md's first join
                    "expr": f'cudacheck_gemm_tflops{{precision="bf16"}} * {join} group_left(modelName) (0 * DCGM_FI_DEV_GPU_TEMP + 1)',
                    "eval_time": "0m",
                    "exp_samples": [{"labels": cudacheck_labels(host_label, NODE, modelName="NVIDIA H200"), "value": bf16_tflops}],
                },
                {   # the temperature dcgm-exporter reads on every GPU whose cublas.gemm passed
                    "expr": f'DCGM_FI_DEV_GPU_TEMP and {join} (cudacheck_check_status{{check="cublas.gemm",status="pass"}} == 1)',
                    "eval_time": "0m",
                    "exp_samples": [{"labels": "DCGM_FI_DEV_GPU_TEMP" + dcgm_labels, "value": 33}],
                },
                {   # the recording rule (RULES): TFLOP/s per watt drawn now
                    "expr": "gpu:cudacheck_gemm_bf16_tflops_per_watt",
                    "eval_time": "0m",
                    "exp_samples": [{"labels": "gpu:cudacheck_gemm_bf16_tflops_per_watt" + cudacheck_labels(host_label, NODE), "value": bf16_tflops / 120.5}],
                },
            ],
        }],
    }


# A recording rule for a fleet whose dcgm-exporters write either spelling of the host label.
RULES = {"groups": [{"name": "cudacheck_dcgm_join", "rules": [
    {"record": "gpu:cudacheck_gemm_bf16_tflops_per_watt",
     "expr": 'cudacheck_gemm_tflops{precision="bf16"} / on(UUID, Hostname) group_left DCGM_FI_DEV_POWER_USAGE'
             ' or cudacheck_gemm_tflops{precision="bf16"} / on(UUID, hostname) group_left DCGM_FI_DEV_POWER_USAGE'},
]}]}


def daemonset_sets_node_name(source_dir):
    """Problems with the DaemonSet's NODE_NAME (none when it is set from spec.nodeName); None without PyYAML."""
    try:
        import yaml
    except ImportError:
        return None
    path = os.path.join(source_dir, "deploy", "kubernetes", "cudacheck-node-health.yaml")
    with open(path, encoding="utf-8") as handle:
        documents = [document for document in yaml.safe_load_all(handle) if document]
    problems = []
    for document in documents:
        if document.get("kind") != "DaemonSet":
            continue
        for container in document["spec"]["template"]["spec"]["containers"]:
            env = {item["name"]: item for item in container.get("env", [])}
            field = env.get("NODE_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
            if field != "spec.nodeName":
                problems.append(f"{path}: container {container['name']} does not set NODE_NAME from fieldRef spec.nodeName")
    return problems


def run_promtool(tool, directory, name, test):
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(test, handle, indent=1)  # JSON is YAML
    return subprocess.run([tool, "test", "rules", path], capture_output=True, text=True, timeout=120)


def main() -> int:
    binary, source_dir = sys.argv[1:]
    tool = promtool()
    if tool is None:
        print("SKIPPED: promtool not found (PROMTOOL, PATH, or tools/install-deps.sh's tests/fixtures/downloaded/promtool)")
        return 77
    problems = []
    node_name_problems = daemonset_sets_node_name(source_dir)
    if node_name_problems is None:
        print("note: PyYAML is not installed; the DaemonSet's NODE_NAME was not checked")
    else:
        problems += node_name_problems

    with open(os.path.join(source_dir, "docs", "examples", "h200", "cudacheck.json"), encoding="utf-8") as handle:
        report = json.load(handle)
    # The figure the joins carry: cublas.gemm's BF16 at 8192 on the recorded GPU, in TFLOP/s.
    bf16_tflops = next(metric["value"] for check in report["checks"] if check["id"] == "cublas.gemm"
                       for metric in check["metrics"] if metric["name"] == "gemm_bf16_8192")
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "rules.yml"), "w", encoding="utf-8") as handle:
            json.dump(RULES, handle, indent=1)
        # The node a run records: the DaemonSet's pod has NODE_NAME from spec.nodeName.
        recorded = recorded_node_name(binary, NODE)
        if recorded != NODE:
            problems.append(f"a run with NODE_NAME={NODE} recorded host.node_name {recorded!r}")
        report["host"]["node_name"] = recorded
        made_here = os.path.join(directory, "made-here.json")
        with open(made_here, "w", encoding="utf-8") as handle:
            json.dump(report, handle)
        cudacheck_text = render(binary, made_here)
        for host_label, dcgm_text in (("Hostname", DCGM_OLD), ("hostname", DCGM_NEW)):
            result = run_promtool(tool, directory, f"join-{host_label}.yml", rules_test(cudacheck_text, dcgm_text, host_label, "rules.yml", bf16_tflops))
            print(f"promtool test rules, joined on(UUID, {host_label}): exit {result.returncode}\n{result.stdout}{result.stderr}")
            if result.returncode != 0:
                problems.append(f"cudacheck's series do not join dcgm-exporter's on(UUID, {host_label})")

        # The control: a report another node made keeps its node whatever the NODE_NAME of the
        # process rendering it, so it must not join this node's dcgm-exporter series: promtool fails.
        report["host"]["node_name"] = NODE + "-elsewhere"
        elsewhere = os.path.join(directory, "elsewhere.json")
        with open(elsewhere, "w", encoding="utf-8") as handle:
            json.dump(report, handle)
        result = run_promtool(tool, directory, "control.yml", rules_test(render(binary, elsewhere, NODE), DCGM_OLD, "Hostname", "rules.yml", bf16_tflops))
        print(f"control (a report made elsewhere must not join): promtool exit {result.returncode}")
        if result.returncode == 0:
            problems.append("the control joined: a report another node made took the renderer's NODE_NAME, or the test cannot fail")
        elif "FAILED" not in result.stdout + result.stderr:
            problems.append(f"the control failed for another reason than the join: {result.stdout}{result.stderr}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
