# One Elasticsearch node = one JVM process. Pid files and logs live under $LAB_DIR (see
# scripts/lib/process.sh), data in $DATA_DIR. The JVMs also carry -Dtenantlab.lab=$LAB_DIR, so
# `ps` shows which lab a node belongs to.

DATA_DIR="$LAB_DIR/data"

# Refuses to start when a port of NODE is taken by anything but this lab's own NODE.
check_node_ports() {
  local node="$1" port holder pid other
  for port in "$(node_var "$node" HTTP_PORT)" "$(node_var "$node" TRANSPORT_PORT)"; do
    holder="$(port_holder "$port")"
    [[ -z "$holder" ]] && continue
    pid="${holder%% *}"
    other="$(lab_of_pid "$pid")"
    if [[ -n "$other" ]]; then
      die "port $port ($node) is held by another tenantlab lab (pid $pid, state in $other): run 'make down' in that lab first"
    fi
    die "port $port ($node) is already in use by pid $holder: stop that process or change $(node_key "$node")_*_PORT in lab.env"
  done
}

node_settings() {
  local node="$1" roles group master="$LAB_MASTER_NODE"
  roles="$(node_var "$node" ROLES)"
  group="$(node_var "$node" GROUP)"
  echo "cluster.name=$CLUSTER_NAME"
  echo "node.name=$node"
  echo "node.roles=$roles"
  [[ -n "$group" ]] && echo "node.attr.$LAB_GROUP_ATTR=$group"
  echo "path.home=$ES_DIST"
  echo "path.data=$DATA_DIR/$node"
  echo "path.logs=$LOG_DIR/$node"
  echo "network.host=$LAB_BIND"
  echo "http.port=$(node_var "$node" HTTP_PORT)"
  echo "transport.port=$(node_var "$node" TRANSPORT_PORT)"
  echo "discovery.seed_hosts=$LAB_BIND:$(node_var "$master" TRANSPORT_PORT)"
  echo "cluster.initial_master_nodes=$master"
  echo "cluster.routing.allocation.disk.watermark.low=$ES_DISK_WATERMARK_LOW"
  echo "cluster.routing.allocation.disk.watermark.high=$ES_DISK_WATERMARK_HIGH"
  echo "cluster.routing.allocation.disk.watermark.flood_stage=$ES_DISK_WATERMARK_FLOOD"
  echo "thread_pool.write.queue_size=${ES_WRITE_QUEUE:-10000}"
  # A shaped node sizes its thread pools from its share of the machine, as a small machine
  # would (shape.js: the quota, else its CPU count); the JVM alone would see every core under
  # taskset's affinity on some JDKs, and rounds a fractional quota up. SHAPE=off: none set
  local processors
  processors="$(node_var "$node" PROCESSORS_APPLIED)"
  [[ -n "$processors" ]] && echo "node.processors=$processors"
  return 0
}

# HEAP (512m, 1g, 1536m...) halved, in MiB
half_of_heap_mb() {
  local n="${1%[mMgG]}" unit="${1: -1}"
  [[ "$n" =~ ^[0-9]+$ ]] || { echo 256; return; }
  case "$unit" in g | G) echo $((n * 512)) ;; *) echo $((n / 2)) ;; esac
}

jvm_options() {
  # HEAP: the node's own (<KEY>_HEAP through shape.js), else ES_HEAP. The local compose image
  # calls this too, with nothing of the lab's config but ES_HEAP
  local node="$1" heap="${2:-$ES_HEAP}"
  # The flags the distribution's jvm.options and launcher would add, plus what running the
  # server jars off the module path needs (see shared notes: native-elasticsearch.md)
  echo "-Dtenantlab.lab=$LAB_DIR"
  echo "-Xms$heap"
  echo "-Xmx$heap"
  # As the distribution's launcher does: direct (netty) buffers get at most half the heap
  echo "-XX:MaxDirectMemorySize=$(half_of_heap_mb "$heap")m"
  echo "-XX:+UseG1GC"
  echo "-Xss1m"
  echo "-XX:-OmitStackTraceInFastThrow"
  echo "-Djava.io.tmpdir=$LAB_DIR/tmp/$node"
  # Plain IPv4 sockets: bound to 127.0.0.1, not to the IPv6-mapped ::ffff:127.0.0.1
  echo "-Djava.net.preferIPv4Stack=true"
  echo "-Dfile.encoding=UTF-8"
  echo "-Djava.awt.headless=true"
  echo "-Dlog4j.shutdownHookEnabled=false"
  echo "-Dlog4j2.disable.jmx=true"
  echo "-Dio.netty.noUnsafe=true"
  echo "-Dio.netty.noKeySetOptimization=true"
  echo "-Dio.netty.recycler.maxCapacityPerThread=0"
  echo "-Des.nativelibs.path=$ES_DIST/nativelibs"
  echo "-Dorg.elasticsearch.nativeaccess.enableVectorLibrary=false"
  echo "--add-modules=jdk.incubator.vector"
  echo "--enable-native-access=org.elasticsearch.nativeaccess,org.elasticsearch.foreign,org.apache.lucene.core,ALL-UNNAMED"
  echo "--module-path=$ES_DIST/lib"
  echo "--add-modules=ALL-MODULE-PATH"
  echo "-cp"
  echo "$ES_DIST/launcher/*"
}

start_node() {
  local node="$1" java_home="$2" args=() prefix=()
  mkdir -p "$RUN_DIR" "$LOG_DIR/$node" "$DATA_DIR/$node" "$LAB_DIR/tmp/$node"
  mapfile -t args < <(jvm_options "$node" "$(node_var "$node" HEAP_APPLIED)"; echo org.tenantlab.nativeruntime.LabNode; node_settings "$node")
  # its size (shape.sh): cgroup-exec or taskset in front of java, which both exec in place
  mapfile -t prefix < <(shape_prefix "$node")
  echo "=== $(date -Is) starting $node" >>"$(log_file "$node")"
  spawn_detached "$(log_file "$node")" "${prefix[@]}" "$java_home/bin/java" "${args[@]}" >"$(pid_file "$node")"
}

# stop_node NODE [SIGNAL]: TERM lets the node close its shards cleanly; KILL is the fault drill
stop_node() {
  stop_name "$1" "${2:-TERM}" 30
  remove_node_cgroup "$1"
}
