# A cluster "out there" for RUNTIME=external, made on this machine: Debian's nginx (unpacked from
# its package, not installed, so no service of the package starts) terminates TLS with a
# certificate of a CA made here, checks basic auth or an API key header, and proxies to the test
# lab's entry point. Loopback only, bounded by `timeout`, stopped by stop_proxy.

# proxy_setup DIR UPSTREAM_PORT: certificates, credentials and the config in DIR; prints nothing
proxy_setup() {
  local dir="$1" upstream="$2" pw key
  mkdir -p "$dir/tmp" "$dir/secrets"
  (
    cd "$dir"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=tenantlab-test-ca 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=127.0.0.1 2>/dev/null
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 \
      -extfile <(printf 'subjectAltName=IP:127.0.0.1\n') 2>/dev/null
    # a CA that signed nothing here: "an untrusted certificate"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.pem -days 2 -subj /CN=another-ca 2>/dev/null
  ) || return 1
  # secrets outside the repository, readable by their owner only
  pw="pw-$(openssl rand -hex 12)" key="$(printf 'labkey:%s' "$(openssl rand -hex 16)" | base64 -w0)"
  (umask 077; printf '%s\n' "$pw" >"$dir/secrets/password"; printf '%s\n' "$key" >"$dir/secrets/api-key")
  cat >"$dir/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
  access_log $dir/access.log;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  client_max_body_size 200m;
  # the map's keys are whole Authorization values, longer than the default bucket holds
  map_hash_bucket_size 256;
  # bulks stream through, in memory: the workers (user nobody) may not write temp files here
  client_body_buffer_size 16m;
  proxy_request_buffering off;
  proxy_buffering off;
  map \$http_authorization \$lab_auth_ok {
    default 0;
    "Basic $(printf 'lab:%s' "$pw" | base64 -w0)" 1;
    "ApiKey $key" 1;
  }
  server {
    listen 127.0.0.1:$PROXY_PORT ssl;
    ssl_certificate $dir/server.pem;
    ssl_certificate_key $dir/server.key;
    location / {
      if (\$lab_auth_ok = 0) { return 401; }
      proxy_set_header Authorization "";
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_read_timeout 300s;
      proxy_pass http://127.0.0.1:$upstream;
    }
  }
}
CONF
}

# nginx_bin: the nginx binary of Debian's package, unpacked once into the lab's cache
nginx_bin() {
  local dir="$LAB_CACHE/nginx"
  if [[ ! -x "$dir/root/usr/sbin/nginx" ]]; then
    mkdir -p "$dir/debs"
    (cd "$dir/debs" && { apt-get download nginx >/dev/null 2>&1 || { apt-get update -qq && apt-get download nginx >/dev/null 2>&1; }; }) \
      || { echo "error: cannot download Debian's nginx package" >&2; return 1; }
    dpkg-deb -x "$(ls "$dir"/debs/nginx_*.deb | head -1)" "$dir/root" || return 1
  fi
  echo "$dir/root/usr/sbin/nginx"
}

# start_proxy DIR: nginx on 127.0.0.1:$PROXY_PORT for at most 30 minutes, ready when it answers
start_proxy() {
  local dir="$1" bin i
  bin="$(nginx_bin)" || return 1
  timeout 1800 "$bin" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >/dev/null 2>&1 3>&- &
  echo $! >"$dir/timeout.pid"
  for ((i = 0; i < 50; i++)); do
    curl -s -o /dev/null --max-time 2 --cacert "$dir/ca.pem" "https://127.0.0.1:$PROXY_PORT/" && return 0
    sleep 0.2
  done
  echo "error: nginx did not answer on 127.0.0.1:$PROXY_PORT: $(tail -n 3 "$dir/error.log" 2>/dev/null)" >&2
  return 1
}

stop_proxy() {
  local dir="$1"
  # either may be gone already (timeout ends with nginx): never a failure, under set -e too
  if [[ -s "$dir/nginx.pid" ]]; then kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true; fi
  if [[ -s "$dir/timeout.pid" ]]; then kill "$(cat "$dir/timeout.pid")" 2>/dev/null || true; fi
  return 0
}
