#!/bin/sh
# workerd as Miniflare starts it, but with Miniflare's entry socket on a Unix socket ($TIERCACHE_ENTRY_SOCKET)
# instead of a loopback port. Started through MINIFLARE_WORKERD_PATH by local/direct-miniflare.ts.
real="$TIERCACHE_WORKERD"
# Behind the local front no TCP client may reach workerd's own HTTP parser, which answers some
# malformed requests (absolute-form, CONNECT, a bad Content-Length) with a 500 before any worker runs.
for arg do
  shift
  case "$arg" in
    --socket-addr=entry=*) arg="--socket-addr=entry=unix:$TIERCACHE_ENTRY_SOCKET" ;;
  esac
  set -- "$@" "$arg"
done
# exec keeps workerd Miniflare's own child.
exec "$real" "$@"
