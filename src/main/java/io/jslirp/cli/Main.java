package io.jslirp.cli;

import io.jslirp.sys.Prelink;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** The {@code jslirp} command. Errors in its arguments print one line and exit 1, as slirp4netns does. */
@Command(name = "jslirp", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "User-mode networking for network namespaces and virtual machines.",
        footer = {"", "Examples:",
                "  jslirp run -- curl http://10.0.2.2:8080/   # 10.0.2.2: the host's 127.0.0.1",
                "  jslirp run -t 8080:80 -- busybox httpd -f -p 80   # on host 127.0.0.1:8080",
                "  jslirp attach --configure $PID tap0   # a namespace, as slirp4netns does",
                "  jslirp qemu --socket /tmp/jslirp.sock  # a QEMU VM with -netdev stream",
                "  jslirp status --api-socket /tmp/api.sock   # flows and counters",
                "  bin/pasta --config-net --netns NS   # as pasta (Podman, RootlessKit)",
                "",
                "'jslirp COMMAND --help' shows a command's options and examples.",
                "docs/compatibility.md compares them with slirp4netns, pasta and QEMU."})
public final class Main implements Runnable {
    static final int EXIT_USAGE = 1;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command (" + String.join(", ", commandNames()) + ")");
    }

    /** The subcommands in the order --help lists them. */
    private static final Map<String, Supplier<Object>> COMMANDS = new LinkedHashMap<>();
    static {
        COMMANDS.put("attach", AttachCommand::new);
        COMMANDS.put("run", RunCommand::new);
        COMMANDS.put("qemu", QemuCommand::new);
        COMMANDS.put("pasta", PastaEntry::new);
        COMMANDS.put("forward", ForwardCommand::new);
        COMMANDS.put("status", StatusCommand::new);
        COMMANDS.put("seccomp-profile", SeccompProfileCommand::new);
        COMMANDS.put("install", InstallCommand::new);
        COMMANDS.put("uninstall", UninstallCommand::new);
    }

    /** The launcher's training run of its start-up cache (hidden). */
    static final String TRAIN = "train";

    /** The subcommands' names, in the order --help lists them. */
    static java.util.List<String> commandNames() {
        return java.util.List.copyOf(COMMANDS.keySet());
    }

    public static void main(String[] args) {
        String first = args.length > 0 ? args[0] : null;
        // pasta's command line has getopt's rules and pasta's messages, not picocli's: before it.
        if ("pasta".equals(first)) {
            Prelink.startInBackground();
            System.exit(PastaCommand.run(java.util.List.of(args).subList(1, args.length)));
        }
        if ("run".equals(first) || "attach".equals(first) || "qemu".equals(first) || TRAIN.equals(first)) Prelink.startInBackground();
        System.exit(commandLine(first).execute(args));
    }

    /**
     * The command line for a run whose first argument is first: with only that subcommand when
     * first names one (picocli reflects over every command it is given: tens of milliseconds of
     * start-up), else with all of them (help, errors).
     */
    static CommandLine commandLine(String first) {
        CommandLine cl = new CommandLine(new Main());
        if (COMMANDS.containsKey(first)) {
            cl.addSubcommand(first, COMMANDS.get(first).get());
        } else if (TRAIN.equals(first)) {
            cl.addSubcommand(TRAIN, new TrainCommand()); // the launcher's, listed nowhere
        } else {
            COMMANDS.forEach((name, command) -> cl.addSubcommand(name, command.get()));
        }
        // run takes its command from its first operand on, as unshare, env and sudo do: the
        // command's own options (curl -s) are the command's, with or without --.
        if (cl.getSubcommands().containsKey("run")) cl.getSubcommands().get("run").setStopAtPositional(true);
        // An argument is what it says, as slirp4netns and QEMU read theirs: "@x" names no file of
        // arguments (picocli's @-files would read one, and fail with a stack trace on "@.").
        cl.setExpandAtFiles(false);
        cl.setParameterExceptionHandler((e, args) -> {
            CommandLine c = e.getCommandLine();
            System.err.println("jslirp: " + UsageErrors.describe(e) + " (see '" + c.getCommandSpec().qualifiedName() + " --help')");
            return EXIT_USAGE;
        });
        cl.setExecutionExceptionHandler((e, c, parseResult) -> {
            System.err.println("jslirp: " + oneLine(e));
            return e instanceof ExitStatus x ? x.status() : EXIT_USAGE;
        });
        return cl;
    }

    /** An error as one line: the message, or the exception's name when it has none. */
    static String oneLine(Throwable e) {
        String m = e.getMessage();
        return UsageErrors.oneLine(m == null || m.isBlank() ? e.getClass().getSimpleName() : m).strip();
    }

    /** {@code jslirp 0.1.0 (commit 1a2b3c4)}: the version and the commit this jar was built from. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"jslirp " + BuildInfo.CURRENT.describe()};
        }
    }
}
