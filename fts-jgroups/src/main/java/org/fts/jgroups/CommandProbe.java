package org.fts.jgroups;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import org.jgroups.JChannel;
import org.jgroups.stack.DiagnosticsHandler;

/**
 * Answers JGroups' {@code probe} keys that start with {@value #PREFIX} with an operator command's outcome ({@link
 * org.fts.gc.GroupChannel#exposeCommands}): {@code fts backup}, {@code fts restore} and {@code fts members} send theirs this way, on the
 * same diagnostics port as {@code fts status} ({@link StatusProbe}). Each field is answered as {@code
 * fts.<name>=<value>}, on one line. A command runs on the diagnostics thread; its handler bounds how long.
 */
public final class CommandProbe implements DiagnosticsHandler.ProbeHandler {
    /** What every command key starts with. */
    public static final String PREFIX = "fts-";

    private final Function<String, Map<String, String>> commands;

    private CommandProbe(Function<String, Map<String, String>> commands) {
        this.commands = commands;
    }

    /**
     * Registers {@code commands} with {@code channel}'s transport (harmless when its diagnostics are off), and takes
     * JGroups' own handler off the probe port: its {@code op=} and {@code jmx=} keys change a protocol, for anyone who
     * reaches the port (docs/security.md, "The admin plane"). Call once the channel is connected (JGroups registers
     * that handler as it connects).
     */
    public static void register(JChannel channel, Function<String, Map<String, String>> commands) {
        org.jgroups.protocols.TP transport = channel.getProtocolStack().getTransport();
        DiagnosticsHandler diagnostics = transport.getDiagnosticsHandler();
        if (diagnostics != null) {
            for (DiagnosticsHandler.ProbeHandler h : java.util.List.copyOf(diagnostics.getProbeHandlers())) {
                if (h instanceof org.jgroups.JChannelProbeHandler) {
                    transport.unregisterProbeHandler(h);
                }
            }
        }
        transport.registerProbeHandler(new CommandProbe(commands));
    }

    @Override
    public Map<String, String> handleProbe(String... keys) {
        for (String key : keys) {
            if (key.startsWith(PREFIX)) {
                Map<String, String> out = new LinkedHashMap<>();
                try {
                    Map<String, String> answer = commands.apply(key);
                    if (answer == null || answer.isEmpty()) {
                        continue;
                    }
                    answer.forEach((k, v) -> out.put(StatusProbe.KEY + "." + k, oneLine(v)));
                } catch (RuntimeException e) {
                    out.put(StatusProbe.KEY + ".error", oneLine(e.toString()));
                }
                return out;
            }
        }
        return null;
    }

    private static String oneLine(String v) {
        return v == null ? "" : v.replace('\r', ' ').replace('\n', ' ');
    }

    @Override
    public String[] supportedKeys() {
        return new String[] {PREFIX + "backup", PREFIX + "restore=<file>", PREFIX + "members-list",
                PREFIX + "members-add=<id>", PREFIX + "members-remove=<id>"};
    }
}
