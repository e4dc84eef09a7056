vcl 4.1;

# One tier of the sim's Varnish baseline (varnish-tier.ts fills the double-brace placeholders): a location's Varnish,
# whose next hop is its shield link, or the shield's, whose next hop is the origin link. Everything not said here is
# Varnish's builtin.vcl, as a user who installs Debian's package and points it at an origin gets it:
#   - a miss fetches the WHOLE object from the next hop: Varnish drops Range (and the conditionals) from a miss's
#     backend request, so a `bytes=400000000-` miss costs the next hop the object from its first byte;
#   - the fetch streams (beresp.do_stream, on by default since Varnish 4): the client gets bytes as they arrive, a
#     range once the bytes before it have arrived, and a request for an object being fetched waits for that one fetch
#     and reads it as it streams (request coalescing), rather than fetching it again;
#   - a fetch its client left goes on to the end, so the object is stored whole.
# Slicing ranges on a miss would take a VMOD Debian's package does not ship (Varnish Enterprise's slicer), or passing
# ranges uncached; neither is what a Varnish user runs by default, so neither is done here.

backend next {
  .host = "{{NEXT_HOST}}";
  .port = "{{NEXT_PORT}}";
  .connect_timeout = 5s;
  # A whole large object through a shaped link, and a first byte that waits on the tier beyond.
  .first_byte_timeout = 120s;
  .between_bytes_timeout = 120s;
}

sub vcl_recv {
  # Readiness probe for the launcher, answered by Varnish itself: never reaches the next hop.
  if (req.url == "{{READY_PATH}}") {
    return (synth(204));
  }
  # One object per path at every tier: each location is reached at an address of its own, and the Host a client
  # sent there must not split the shield's cache by location.
  set req.http.Host = "{{ORIGIN_AUTHORITY}}";
  unset req.http.x-tier-fwd;
}

# Why this tier went forward, for its Cache-Status member (RFC 9211 §2.2); a request that did not is a hit.
sub vcl_miss {
  set req.http.x-tier-fwd = "miss";
}

sub vcl_pass {
  set req.http.x-tier-fwd = "bypass";
}

sub vcl_backend_fetch {
  unset bereq.http.x-tier-fwd;
  # The origin's objects live under its base path (empty, or a bucket as "/bucket"); only the shield adds it.
  set bereq.url = "{{NEXT_PATH}}" + bereq.url;
}

sub vcl_deliver {
  # RFC 9211: each cache appends its member, the one nearest the origin first; a location's member follows the
  # shield's member stored with the object (on a location's hit, that one tells of the fetch that filled it).
  if (req.http.x-tier-fwd) {
    set req.http.x-tier-member = "varnish-{{TIER}}; fwd=" + req.http.x-tier-fwd;
  } else {
    set req.http.x-tier-member = "varnish-{{TIER}}; hit";
  }
  if (resp.http.Cache-Status) {
    set resp.http.Cache-Status = resp.http.Cache-Status + ", " + req.http.x-tier-member;
  } else {
    set resp.http.Cache-Status = req.http.x-tier-member;
  }
  unset req.http.x-tier-member;
}
