# The tenant allocator (allocator/): places tenants into index groups, moves and rebalances
# them. Started once the cluster is green; it would wait for it anyway.
SERVICE_PORT="$ALLOCATOR_PORT"
SERVICE_HEALTH=/readyz

service_prepare() { "$LAB_ROOT/scripts/install/npm-deps.sh" allocator; }

service_command() {
  echo node
  echo "$LAB_ROOT/allocator/src/main.js"
}
