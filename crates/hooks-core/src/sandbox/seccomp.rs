//! The seccomp filter a confined hook gets on Linux beside its Landlock domain, for what
//! Landlock does not see: TCP opened without `connect` (a Fast Open `sendto`, an MPTCP socket,
//! `io_uring`), keystrokes pushed into a terminal (`TIOCSTI`), and the metadata calls no
//! Landlock right covers (owners, extended attributes such as file capabilities, setuid and
//! setgid bits). Built by a pure function as classic BPF, checked here by running it.

/// One BPF instruction (`struct sock_filter`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SockFilter {
    /// The operation.
    pub code: u16,
    /// Instructions to skip when a jump's test holds.
    pub jt: u8,
    /// Instructions to skip when it does not.
    pub jf: u8,
    /// The operand.
    pub k: u32,
}

/// A processor's system call numbers, as far as the filter names them.
#[derive(Debug, Clone, Copy)]
pub struct Arch {
    /// `AUDIT_ARCH_*`: what `seccomp_data.arch` holds for this ABI.
    pub audit: u32,
    /// The bit that marks another ABI's calls on the same processor (x32 on x86-64).
    pub foreign_bit: Option<u32>,
    socket: u32,
    sendto: u32,
    sendmsg: u32,
    sendmmsg: u32,
    ioctl: u32,
    /// `(number, index of the mode argument)`.
    chmods: &'static [(u32, usize)],
    /// Changing owners and extended attributes: refused whatever the arguments.
    refused: &'static [u32],
}

const IO_URING_SETUP: u32 = 425;
const FCHMODAT2: u32 = 452;
const SETXATTRAT: u32 = 463;
const REMOVEXATTRAT: u32 = 466;

/// x86-64.
pub const X86_64: Arch = Arch {
    audit: 0xC000_003E,
    foreign_bit: Some(0x4000_0000),
    socket: 41,
    sendto: 44,
    sendmsg: 46,
    sendmmsg: 307,
    ioctl: 16,
    chmods: &[(90, 1), (91, 1), (268, 2), (FCHMODAT2, 2)],
    // chown, fchown, lchown, fchownat; setxattr, lsetxattr, fsetxattr, removexattr,
    // lremovexattr, fremovexattr, setxattrat, removexattrat.
    refused: &[
        92,
        93,
        94,
        260,
        188,
        189,
        190,
        197,
        198,
        199,
        SETXATTRAT,
        REMOVEXATTRAT,
    ],
};

/// AArch64.
pub const AARCH64: Arch = Arch {
    audit: 0xC000_00B7,
    foreign_bit: None,
    socket: 198,
    sendto: 206,
    sendmsg: 211,
    sendmmsg: 269,
    ioctl: 29,
    chmods: &[(52, 1), (53, 2), (FCHMODAT2, 2)],
    // fchownat, fchown; setxattr, lsetxattr, fsetxattr, removexattr, lremovexattr,
    // fremovexattr, setxattrat, removexattrat.
    refused: &[54, 55, 5, 6, 7, 14, 15, 16, SETXATTRAT, REMOVEXATTRAT],
};

/// This build's processor, if the filter knows it.
pub fn native() -> Option<Arch> {
    if cfg!(target_arch = "x86_64") {
        Some(X86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(AARCH64)
    } else {
        None
    }
}

// Classic BPF.
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JSET_K: u16 = 0x45;
const RET_K: u16 = 0x06;

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ERRNO: u32 = 0x0005_0000;
const EPERM: u32 = 1;
const EACCES: u32 = 13;
const ENOSYS: u32 = 38;

/// `MSG_FASTOPEN`: a `sendto`/`sendmsg` that opens the TCP connection itself.
const MSG_FASTOPEN: u32 = 0x2000_0000;
/// `IPPROTO_MPTCP`: Multipath TCP, which Landlock's TCP rules do not cover.
const IPPROTO_MPTCP: u32 = 262;
/// `TIOCSTI` (push a byte into a terminal's input) and `TIOCLINUX` (the console's paste).
const TIOCSTI: u32 = 0x5412;
const TIOCLINUX: u32 = 0x541C;
/// The setuid and setgid bits of a mode.
const SET_ID_BITS: u32 = 0o6000;

/// Offsets in `struct seccomp_data`: the call's number, its ABI, and the low half of each
/// argument (little-endian, as both processors are).
const NR: u32 = 0;
const ARCH: u32 = 4;
fn arg(index: usize) -> u32 {
    16 + 8 * index as u32
}

fn stmt(code: u16, k: u32) -> SockFilter {
    SockFilter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> SockFilter {
    SockFilter { code, jt, jf, k }
}

/// A test of one call: when the number is `nr`, load argument `arg` and refuse with `errno`
/// if `test` (`JEQ_K` or `JSET_K`) holds for `k`; `arg: None` refuses the call outright.
struct Rule {
    nr: u32,
    arg: Option<(usize, u16, u32)>,
    errno: u32,
}

/// The filter for a confined hook on `arch`, the network allowed or not: every call is
/// allowed but those of the module's comment, which fail with `EACCES` (network), `EPERM`
/// (terminals, owners, attributes, set-id bits) or `ENOSYS` (`io_uring`, and another ABI's
/// calls: a 32-bit or x32 program could reach the network by calls this filter does not
/// read, so none runs).
pub fn seccomp_filter(arch: &Arch, network: bool) -> Vec<SockFilter> {
    let mut rules = Vec::new();
    if !network {
        rules.push(Rule {
            nr: arch.socket,
            arg: Some((2, JEQ_K, IPPROTO_MPTCP)),
            errno: EACCES,
        });
        for (nr, flags) in [(arch.sendto, 3), (arch.sendmsg, 2), (arch.sendmmsg, 3)] {
            rules.push(Rule {
                nr,
                arg: Some((flags, JSET_K, MSG_FASTOPEN)),
                errno: EACCES,
            });
        }
        rules.push(Rule {
            nr: IO_URING_SETUP,
            arg: None,
            errno: ENOSYS,
        });
    }
    for cmd in [TIOCSTI, TIOCLINUX] {
        rules.push(Rule {
            nr: arch.ioctl,
            arg: Some((1, JEQ_K, cmd)),
            errno: EPERM,
        });
    }
    for &(nr, mode) in arch.chmods {
        rules.push(Rule {
            nr,
            arg: Some((mode, JSET_K, SET_ID_BITS)),
            errno: EPERM,
        });
    }
    for &nr in arch.refused {
        rules.push(Rule {
            nr,
            arg: None,
            errno: EPERM,
        });
    }

    let mut prog = vec![
        stmt(LD_W_ABS, ARCH),
        jump(JEQ_K, arch.audit, 1, 0),
        stmt(RET_K, RET_ERRNO | ENOSYS),
        stmt(LD_W_ABS, NR),
    ];
    if let Some(bit) = arch.foreign_bit {
        prog.push(jump(JSET_K, bit, 0, 1));
        prog.push(stmt(RET_K, RET_ERRNO | ENOSYS));
    }
    // Each rule: is it this call? (else skip the rule); test the argument (else reload the
    // number and go on); refuse.
    for rule in rules {
        match rule.arg {
            None => {
                prog.push(jump(JEQ_K, rule.nr, 0, 1));
                prog.push(stmt(RET_K, RET_ERRNO | rule.errno));
            }
            Some((index, test, k)) => {
                prog.push(jump(JEQ_K, rule.nr, 0, 3));
                prog.push(stmt(LD_W_ABS, arg(index)));
                prog.push(jump(test, k, 0, 1));
                prog.push(stmt(RET_K, RET_ERRNO | rule.errno));
                prog.push(stmt(LD_W_ABS, NR));
            }
        }
    }
    prog.push(stmt(RET_K, RET_ALLOW));
    prog
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `prog` on a call, as the kernel would: its number, ABI and arguments.
    fn run(prog: &[SockFilter], arch: u32, nr: u32, args: [u64; 6]) -> u32 {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&nr.to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        for (i, a) in args.iter().enumerate() {
            data[16 + 8 * i..24 + 8 * i].copy_from_slice(&a.to_le_bytes());
        }
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let ins = prog[pc];
            pc += 1;
            match ins.code {
                LD_W_ABS => {
                    let at = ins.k as usize;
                    acc = u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
                }
                JEQ_K | JSET_K => {
                    let holds = if ins.code == JEQ_K {
                        acc == ins.k
                    } else {
                        acc & ins.k != 0
                    };
                    pc += usize::from(if holds { ins.jt } else { ins.jf });
                }
                RET_K => return ins.k,
                other => panic!("unknown instruction {other:#x}"),
            }
        }
    }

    const DENY_ACCES: u32 = RET_ERRNO | EACCES;
    const DENY_PERM: u32 = RET_ERRNO | EPERM;
    const DENY_NOSYS: u32 = RET_ERRNO | ENOSYS;

    #[test]
    fn tcp_without_connect_is_refused_unless_the_network_is_allowed() {
        for arch in [X86_64, AARCH64] {
            let closed = seccomp_filter(&arch, false);
            let open = seccomp_filter(&arch, true);
            let mptcp = [2, 1, IPPROTO_MPTCP as u64, 0, 0, 0];
            assert_eq!(run(&closed, arch.audit, arch.socket, mptcp), DENY_ACCES);
            assert_eq!(run(&open, arch.audit, arch.socket, mptcp), RET_ALLOW);
            // TCP itself (6) and UDP (17) are Landlock's to judge, or allowed.
            assert_eq!(
                run(&closed, arch.audit, arch.socket, [2, 1, 6, 0, 0, 0]),
                RET_ALLOW
            );
            assert_eq!(
                run(&closed, arch.audit, arch.socket, [2, 2, 17, 0, 0, 0]),
                RET_ALLOW
            );
            let fast_open = u64::from(MSG_FASTOPEN | 0x40);
            assert_eq!(
                run(&closed, arch.audit, arch.sendto, [3, 0, 1, fast_open, 0, 0]),
                DENY_ACCES
            );
            assert_eq!(
                run(
                    &closed,
                    arch.audit,
                    arch.sendmsg,
                    [3, 0, fast_open, 0, 0, 0]
                ),
                DENY_ACCES
            );
            assert_eq!(
                run(
                    &closed,
                    arch.audit,
                    arch.sendmmsg,
                    [3, 0, 1, fast_open, 0, 0]
                ),
                DENY_ACCES
            );
            assert_eq!(
                run(&closed, arch.audit, arch.sendto, [3, 0, 1, 0x40, 0, 0]),
                RET_ALLOW
            );
            assert_eq!(
                run(&open, arch.audit, arch.sendto, [3, 0, 1, fast_open, 0, 0]),
                RET_ALLOW
            );
            assert_eq!(run(&closed, arch.audit, IO_URING_SETUP, [0; 6]), DENY_NOSYS);
            assert_eq!(run(&open, arch.audit, IO_URING_SETUP, [0; 6]), RET_ALLOW);
        }
    }

    #[test]
    fn terminal_injection_owners_attributes_and_set_id_bits_are_refused_either_way() {
        for arch in [X86_64, AARCH64] {
            for network in [false, true] {
                let prog = seccomp_filter(&arch, network);
                for cmd in [TIOCSTI, TIOCLINUX] {
                    assert_eq!(
                        run(&prog, arch.audit, arch.ioctl, [0, cmd as u64, 0, 0, 0, 0]),
                        DENY_PERM
                    );
                }
                assert_eq!(
                    run(&prog, arch.audit, arch.ioctl, [0, 0x5401, 0, 0, 0, 0]),
                    RET_ALLOW
                );
                for &(nr, mode) in arch.chmods {
                    let mut args = [0u64; 6];
                    args[mode] = 0o4755;
                    assert_eq!(
                        run(&prog, arch.audit, nr, args),
                        DENY_PERM,
                        "chmod {nr} u+s"
                    );
                    args[mode] = 0o2755;
                    assert_eq!(
                        run(&prog, arch.audit, nr, args),
                        DENY_PERM,
                        "chmod {nr} g+s"
                    );
                    args[mode] = 0o755;
                    assert_eq!(run(&prog, arch.audit, nr, args), RET_ALLOW, "chmod {nr} +x");
                }
                for &nr in arch.refused {
                    assert_eq!(run(&prog, arch.audit, nr, [0; 6]), DENY_PERM, "call {nr}");
                }
            }
        }
    }

    #[test]
    fn another_abis_calls_fail_and_every_other_call_is_allowed() {
        let prog = seccomp_filter(&X86_64, false);
        // i386 on x86-64, and x32.
        assert_eq!(run(&prog, 0x4000_0003, 102, [0; 6]), DENY_NOSYS);
        assert_eq!(
            run(&prog, X86_64.audit, 0x4000_0000 | 41, [0; 6]),
            DENY_NOSYS
        );
        for nr in [0, 1, 2, 3, 59, 60, 231, 257] {
            assert_eq!(run(&prog, X86_64.audit, nr, [0; 6]), RET_ALLOW, "call {nr}");
        }
        assert_eq!(
            run(&seccomp_filter(&AARCH64, false), X86_64.audit, 0, [0; 6]),
            DENY_NOSYS
        );
    }

    #[test]
    fn every_jump_lands_inside_the_program() {
        for arch in [X86_64, AARCH64] {
            for network in [false, true] {
                let prog = seccomp_filter(&arch, network);
                assert!(prog.len() < 256, "{}", prog.len());
                for (at, ins) in prog.iter().enumerate().filter(|(_, i)| i.code != RET_K) {
                    let last = at + 1 + usize::from(ins.jt.max(ins.jf));
                    assert!(last < prog.len(), "instruction {at} jumps out");
                }
                assert_eq!(prog.last().map(|i| i.k), Some(RET_ALLOW));
            }
        }
    }
}
