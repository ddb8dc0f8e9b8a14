package com.example.kv;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * One replica of the store. Its configuration is the ORB's: {@code -Dcustom.props=config/replica-N.properties}.
 * Writes the store's object group reference to the file given as its argument, then serves until stopped
 * (SIGTERM leaves the group gracefully).
 */
public final class KvReplica {
    private KvReplica() {
    }

    public static void main(String[] args) throws Exception {
        ORB orb = ORB.init(args, null);
        POA poa = POAHelper.narrow(orb.resolve_initial_references("GroupPOA"));   // the one FTS line
        byte[] id = "store".getBytes(StandardCharsets.UTF_8);                    // the same on every replica
        poa.activate_object_with_id(id, new StoreImpl());
        poa.the_POAManager().activate();   // returns once this replica holds the group's state
        String ior = orb.object_to_string(poa.id_to_reference(id));
        if (args.length > 0) {
            Path file = Path.of(args[0]).toAbsolutePath();
            // each replica its own temporary file: the three write the group's reference at once
            Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            Files.writeString(tmp, ior, StandardCharsets.US_ASCII);
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
        System.out.println("kv replica ready");
        System.out.flush();
        orb.run();
    }
}
