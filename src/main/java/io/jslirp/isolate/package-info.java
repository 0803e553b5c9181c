/**
 * Isolation: a running instance given a root of its own and stripped of its capabilities, by a
 * second start ({@link Sandbox}, for {@code --enable-sandbox}) or in place ({@link InPlace}).
 *
 * <h2>Theory of operation</h2>
 *
 * <p>A JVM cannot confine itself in place. Capabilities are per thread and no call changes another
 * thread's (the JVM's first thread, which started it, waits in the launcher with every capability it
 * had); a mount namespace and a root are per thread once a thread unshares them, and the JVM's own
 * threads stay where they were. So the instance does its privileged set-up first (the tap in the
 * target's network namespace, the addresses, the API socket's file) and then, on one dedicated
 * thread:
 *
 * <ol>
 * <li>unshares its mount namespace, every mount made a slave (nothing done inside reaches the
 *     caller's namespace; slirp4netns's no-unmount test checks that);
 * <li>builds a new root on a tmpfs ({@link RootLayout}): /etc and /run read-only (the resolver
 *     files and the API socket's directory, as slirp4netns's sandbox has), /usr read-only (the C
 *     library the JVM's launcher links), the JDK, the jar and its AOT cache at /jslirp, four
 *     device nodes, and the files the options name (a --resolv-conf, a --tftp directory read-only,
 *     a --pcap file writable: that file alone, made beforehand);
 * <li>pivot_root into it and detaches the old root: nothing else of the filesystem is reachable;
 * <li>sets no_new_privs and keeps only CAP_NET_BIND_SERVICE, in every set and the bounding set;
 * <li>marks every descriptor close-on-exec but those handed over ({@link Handoff}), and execs the
 *     JVM again with the same options and arguments ({@link Relaunch}), the paths rewritten to
 *     the new root's.
 * </ol>
 *
 * <p>The kernel ends every other thread at exec; the program that runs on is the same process (its
 * PID, its parent, its inherited descriptors), whose every thread starts from the confined
 * thread's root, namespaces and capabilities. It finds the handed-over descriptors in its
 * environment and serves them without any set-up of its own. The price is a second JVM start.
 *
 * <h2>In place, without a second start ({@link InPlace}: pasta mode by default)</h2>
 *
 * <p>Two facts let a running JVM confine all its threads where the launcher prepares for it:
 *
 * <ul>
 * <li>A JVM's threads share one root and working directory (pthreads are made with CLONE_FS), and
 *     pivot_root moves every task whose root is the old root. If the launcher has started the JVM
 *     in a mount namespace of its own ({@code unshare --mount}, which then holds no other process;
 *     {@link InPlace#PRIVATE_MOUNTS} says so, and the namespace must differ from the parent's), one
 *     thread builds the root ({@link RootLayout#inPlace}: /usr, four device nodes, and the JDK, the
 *     jar and its cache at their own paths, where the JVM will look for what it loads later) and
 *     pivot_roots: every thread is inside, the launcher's first one too. In a shared mount
 *     namespace the same call would move every other process of it: that is why it is refused
 *     there.
 * <li>The C library changes the user of every thread it knows when one calls setresuid (the
 *     kernel's call acts on its caller alone). Going from user 0 to another empties every
 *     capability set of the thread, so one call takes every capability from every thread, for
 *     good. It needs a second user in the user namespace: nobody (65534), which Podman's and
 *     RootlessKit's namespaces have.
 * </ul>
 *
 * <p>A thread may have a mount namespace of its own: {@code jslirp run}'s, which starts the command
 * from a copy of the JVM's mount namespace so that the command keeps the host's files. pivot_root
 * leaves it (and the threads it started, which share its root) where it was, so it is given a
 * descriptor of the new root and enters it itself ({@link io.jslirp.sys.Mounts#enterRoot}: fchdir,
 * then chroot), before the user and the filter change.
 *
 * <p>Then the seccomp filter goes on every thread (TSYNC, which sets no_new_privs on each): on
 * x86-64 an allow-list of what the loop, the JVM and the C library call in a running process. What
 * the instance serves from then on must be open already: the tap, the sockets, the namespaces'
 * descriptors, a log or capture file.
 */
package io.jslirp.isolate;
