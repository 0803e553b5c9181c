package io.jslirp.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code jslirp} command. Errors in its arguments print one line and exit 1, as slirp4netns does. */
@Command(name = "jslirp", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "User-mode networking for network namespaces and virtual machines.",
        footer = {"", "Examples:",
                "  jslirp run -- curl http://10.0.2.2:8080/   # 10.0.2.2: the host's 127.0.0.1",
                "  jslirp run -t 8080:80 -- busybox httpd -f -p 80   # on host 127.0.0.1:8080",
                "  jslirp attach --configure $PID tap0   # a namespace, as slirp4netns does",
                "  jslirp qemu --socket /tmp/jslirp.sock  # a QEMU VM with -netdev stream",
                "  jslirp status --api-socket /tmp/api.sock   # flows and counters",
                "",
                "'jslirp COMMAND --help' shows a command's options and examples.",
                "docs/compatibility.md compares them with slirp4netns, pasta and QEMU."},
        subcommands = {AttachCommand.class, RunCommand.class, QemuCommand.class, ForwardCommand.class, StatusCommand.class})
public final class Main implements Runnable {
    static final int EXIT_USAGE = 1;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command (attach, run, qemu, forward or status)");
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setParameterExceptionHandler((e, args) -> {
            CommandLine c = e.getCommandLine();
            System.err.println("jslirp: " + e.getMessage() + " (see '" + c.getCommandSpec().qualifiedName() + " --help')");
            return EXIT_USAGE;
        });
        cl.setExecutionExceptionHandler((e, c, parseResult) -> {
            System.err.println("jslirp: " + oneLine(e));
            return EXIT_USAGE;
        });
        return cl;
    }

    /** An error as one line: the message, or the exception's name when it has none. */
    static String oneLine(Throwable e) {
        String m = e.getMessage();
        return (m == null || m.isBlank() ? e.getClass().getSimpleName() : m).replace('\n', ' ');
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"jslirp " + (v == null ? "dev" : v)};
        }
    }
}
