# The size budget of the stripped linux-x64-gnu binary, one value for every script that checks
# it (test:package, build:cross). Sourced; sets MAX_BYTES and MAX_TEXT. It was 2 MiB until
# trust, the policy store, managed hooks, the failure policy and scrubEnv took it to 2.19 MiB.
MAX_BYTES=$((5 * 1024 * 1024 / 2))
MAX_TEXT="2.5 MiB"
