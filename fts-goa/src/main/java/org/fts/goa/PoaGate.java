package org.fts.goa;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.omg.CORBA.LocalObject;
import org.omg.PortableServer.AdapterActivator;
import org.omg.PortableServer.POA;

/**
 * The RootPOA's adapter activator while the group's POA is being created. JacORB accepts requests once the RootPOA
 * is resolved; one for a child POA that does not exist yet gets OBJECT_NOT_EXIST, which FT clients take as final:
 * the clients of a restarting replica would be told that a request another replica executed does not exist. A
 * request for an {@code FTS-} POA waits here (at most 30 s) until the adaptor created it, then goes to it (which
 * holds it until the application activates its objects).
 */
final class PoaGate extends LocalObject implements AdapterActivator {
    private static final long WAIT_SECONDS = 30;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile String created;

    /** The group's POA {@code name} exists now (null: its creation failed). */
    void created(String name) {
        created = name;
        done.countDown();
    }

    @Override
    public boolean unknown_adapter(POA parent, String name) {
        if (!name.startsWith("FTS-")) {
            return false;
        }
        try {
            done.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!name.equals(created)) {
            return false;
        }
        try {
            parent.find_POA(name, false);   // not destroyed since
            return true;
        } catch (org.omg.PortableServer.POAPackage.AdapterNonExistent e) {
            return false;
        }
    }
}
