# The size budget of the stripped linux-x64-gnu binary, one value for every script that checks
# it (test:package, build:cross). Sourced; sets MAX_BYTES and MAX_TEXT. It was 2 MiB until
# trust, the policy store, managed hooks, the failure policy and scrubEnv took it to 2.19 MiB,
# and 2.5 MiB until observability (2.47 MiB) and the hook header with persistent hooks
# (2.77 MiB) filled it.
MAX_BYTES=$((3 * 1024 * 1024))
MAX_TEXT="3 MiB"
