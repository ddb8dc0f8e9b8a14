package org.fts.chaos;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Each replica's log directory ({@code <fts.durability.dir>/<group>/r<i>}) on a tmpfs volume of its own, so that the
 * {@code diskfull} nemesis can fill one: {@link #fill} shrinks a volume to what it holds and a little more, {@link
 * #grow} gives it its full size back. Needs root and {@code mount}; the volumes are unmounted on {@link #close}, and by
 * a shutdown hook if the run dies first. tmpfs takes memory only for what is written.
 */
final class Volumes implements AutoCloseable {
    /** A volume's full size. */
    static final long FULL = 1L << 30;
    /** What a filled volume has left: the replica writes that much more, then its next write fails. */
    static final long MARGIN = 1L << 20;

    private final List<Path> dirs;
    private final NetFilter.Runner mount;
    private final Consumer<String> log;
    private final Thread hook = new Thread(this::unmountAll, "fts-chaos-volumes-cleanup");
    private boolean closed;

    private Volumes(List<Path> dirs, NetFilter.Runner mount, Consumer<String> log) {
        this.dirs = dirs;
        this.mount = mount;
        this.log = log;
    }

    /** Mounts a volume at each of the {@code replicas} replicas' directories under {@code groupDir}. */
    static Volumes open(Path groupDir, int replicas, Consumer<String> log) throws IOException, InterruptedException {
        if (!NetFilter.isRoot()) {
            throw new NetFilter.Unavailable("the diskfull nemesis puts each replica's log on a tmpfs volume of its own "
                    + "and needs root: run as root (e.g. sudo bin/fts chaos ...)");
        }
        String program = Files.isExecutable(Path.of("/usr/bin/mount")) ? "/usr/bin/mount" : "/bin/mount";
        if (!Files.isExecutable(Path.of(program))) {
            throw new NetFilter.Unavailable("the diskfull nemesis needs mount (util-linux), which is not installed");
        }
        List<Path> dirs = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            dirs.add(Files.createDirectories(groupDir.resolve("r" + i)));
        }
        Volumes v = new Volumes(dirs, NetFilter.command(program), log);
        Runtime.getRuntime().addShutdownHook(v.hook);
        try {
            for (Path d : dirs) {
                v.run(List.of("-t", "tmpfs", "-o", "size=" + FULL + ",mode=0755", "fts-chaos", d.toString()));
            }
        } catch (IOException | InterruptedException e) {
            v.close();
            throw e;
        }
        return v;
    }

    /** Shrinks replica {@code i}'s volume to what it holds and {@link #MARGIN}. */
    void fill(int i) throws IOException, InterruptedException {
        Path d = dirs.get(i);
        FileStore store = Files.getFileStore(d);
        long used = store.getTotalSpace() - store.getUnallocatedSpace();
        long size = (used + MARGIN + 4095) / 4096 * 4096;
        run(List.of("-o", "remount,size=" + size, d.toString()));
    }

    /** Gives replica {@code i}'s volume its full size back. */
    void grow(int i) throws IOException, InterruptedException {
        run(List.of("-o", "remount,size=" + FULL, dirs.get(i).toString()));
    }

    private void run(List<String> args) throws IOException, InterruptedException {
        mount.run(args);
        log.accept("mount " + String.join(" ", args));
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        unmountAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down: the hook runs, or ran
        }
    }

    private void unmountAll() {
        for (Path d : dirs) {
            try {
                NetFilter.command("/bin/umount").run(List.of("-l", d.toString()));
            } catch (IOException | InterruptedException e) {
                log.accept("umount " + d + " failed: " + e.getMessage());
            }
        }
    }
}
