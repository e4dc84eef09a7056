vcl 4.1;

# The benchmark's Varnish peer, filled in by varnish.ts: the double-brace placeholders are replaced
# before varnishd compiles it. Everything else is Varnish's builtin.vcl: a miss fetches the
# whole object (Range and conditionals are not sent to the backend) and ranges are served from
# the cache; concurrent misses for one object wait for one fetch (request coalescing). The TTL
# for responses that say nothing about freshness is varnishd's `-t`, set to DEFAULT_TTL.
# Storage is `-s malloc,<size>`, given on the command line.

backend origin {
  .host = "{{ORIGIN_HOST}}";
  .port = "{{ORIGIN_PORT}}";
  .connect_timeout = 5s;
  .first_byte_timeout = 60s;
  .between_bytes_timeout = 60s;
}

sub vcl_recv {
  # Readiness probe for the launcher, answered by Varnish itself: never reaches the origin.
  if (req.url == "{{READY_PATH}}") {
    return (synth(204));
  }
}

sub vcl_backend_fetch {
  # The origin's objects live under its base path (empty, or a bucket as "/bucket").
  set bereq.url = "{{ORIGIN_PATH}}" + bereq.url;
  set bereq.http.Host = "{{ORIGIN_AUTHORITY}}";
}

sub vcl_deliver {
  # obj.hits counts deliveries from the cache; X-Varnish also carries two ids on a hit.
  if (obj.hits > 0) {
    set resp.http.X-Cache-Status = "HIT";
  } else {
    set resp.http.X-Cache-Status = "MISS";
  }
}
