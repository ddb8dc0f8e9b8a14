package org.fts.loadtest.campaign;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the campaign ran on, in one line for the report: cores, CPU model, memory, OS, JDK. */
public final class Machine {
    private Machine() {
    }

    public static String describe() {
        String cpu = "";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("");
        } catch (IOException e) {
            // not Linux
        }
        long memBytes = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getTotalMemorySize() : 0;
        return Runtime.getRuntime().availableProcessors() + " cores" + (cpu.isEmpty() ? "" : " (" + cpu + ")")
                + ", " + Math.round(memBytes / (1024.0 * 1024 * 1024)) + " GiB, " + System.getProperty("os.name")
                + " " + System.getProperty("os.version") + ", " + System.getProperty("java.vm.name") + " "
                + Runtime.version();
    }
}
