# The size budget of the stripped linux-x64-gnu binary, one value for every script that checks
# it (test:package, build:cross). Sourced; sets MAX_BYTES and MAX_TEXT. It was 2 MiB until
# trust, the policy store, managed hooks, the failure policy and scrubEnv took it to 2.19 MiB,
# and 2.5 MiB until observability (2.47 MiB) and the hook header with persistent hooks
# (2.77 MiB) filled it, and 3 MiB until the cli profile's parity with the Cline SDK 0.0.86 (its
# run order, #! rules and CLINE_BUILD_ENV) took it to 3.002 MiB. (ICU's collation tables for
# that order would have added 1.2 MiB: discovery/run_order.rs has its own, exact for ASCII.)
# 3.25 MiB until Claude Code's settings hooks (issue 36) took it to 3,494,832 bytes; 3.5 MiB
# until confined hooks (3,600,544) and a Claude handler run per batch item, the SDK's field
# order and the scripts reader that follows cd, wrappers and subshells took it to 3,704,416.
MAX_BYTES=$((3 * 1024 * 1024 + 768 * 1024))
MAX_TEXT="3.75 MiB"
