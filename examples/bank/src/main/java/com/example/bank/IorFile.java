package com.example.bank;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import org.omg.CORBA.ORB;

/** A stringified reference in a file: written whole (a reader never sees half of one), read back. */
final class IorFile {
    private IorFile() {
    }

    static void write(ORB orb, org.omg.CORBA.Object ref, String file) throws IOException {
        Path path = Path.of(file).toAbsolutePath();
        // each writer its own temporary file: three replicas write the group's reference at once
        Path tmp = Files.createTempFile(path.getParent(), path.getFileName().toString(), ".tmp");
        Files.writeString(tmp, orb.object_to_string(ref), StandardCharsets.US_ASCII);
        Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static org.omg.CORBA.Object read(ORB orb, String file) throws IOException {
        return orb.string_to_object(Files.readString(Path.of(file), StandardCharsets.US_ASCII).trim());
    }
}
