package org.fts.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Replacing a file so that a crash leaves the old content or the new, never half of one. */
public final class AtomicFiles {
    private AtomicFiles() {
    }

    /**
     * Writes {@code content} to {@code target}: to a temporary file beside it, synced, renamed into place, and the
     * directory synced (a file created or renamed is durable only once its directory is).
     *
     * @throws IOException naming the file if the file system cannot rename atomically, or on any I/O error
     */
    public static void replace(Path target, ByteBuffer content) throws IOException {
        replace(target, content, true);
    }

    /**
     * As {@link #replace(Path, ByteBuffer)}, with the two syncs only if {@code sync}: without them the rename is still
     * atomic (a reader sees the old content or the new), but a power loss may leave either, or an empty file.
     */
    public static void replace(Path target, ByteBuffer content, boolean sync) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            while (content.hasRemaining()) {
                ch.write(content);
            }
            if (sync) {
                ch.force(true);
            }
        }
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException(target + ": the file system cannot rename atomically", e);
        }
        if (sync) {
            syncDirectory(target.toAbsolutePath().getParent());
        }
    }

    /**
     * Creates {@code dir} and its missing parents, each synced into its parent, so that the directory (and the files
     * created in it, once it is synced in turn) survives a power loss: a new directory is durable only once the
     * directory holding its name is synced.
     *
     * @return {@code dir}
     */
    public static Path createDirectories(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        java.util.ArrayDeque<Path> missing = new java.util.ArrayDeque<>();
        for (Path p = absolute; p != null && !Files.isDirectory(p); p = p.getParent()) {
            missing.push(p);
        }
        Files.createDirectories(absolute);
        for (Path created : missing) {   // outermost first
            syncDirectory(created.getParent());
        }
        return dir;
    }

    /** Syncs the directory {@code dir} (the names it holds). */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
