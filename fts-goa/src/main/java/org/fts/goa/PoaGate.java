package org.fts.goa;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.omg.CORBA.LocalObject;
import org.omg.CORBA.Policy;
import org.omg.PortableServer.AdapterActivator;
import org.omg.PortableServer.IdAssignmentPolicyValue;
import org.omg.PortableServer.LifespanPolicyValue;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.RequestProcessingPolicyValue;
import org.omg.PortableServer.ServantRetentionPolicyValue;

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

    /** A gate, installed as {@code root}'s adapter activator unless the application installed one. */
    static PoaGate install(POA root) {
        PoaGate gate = new PoaGate();
        if (root.the_activator() == null) {
            root.the_activator(gate);
        }
        return gate;
    }

    /**
     * Creates the group's POA {@code FTS-<group>} and opens the gate to it (also when the creation fails: the
     * waiting requests are then refused). PERSISTENT + USER_ID, with the same POA name and
     * {@code jacorb.implname}, give the same object key on every replica; the adaptor's servant manager (set
     * later) locates every servant.
     */
    POA createGroupPoa(POA root, String group) throws org.omg.PortableServer.POAPackage.AdapterAlreadyExists,
            org.omg.PortableServer.POAPackage.InvalidPolicy {
        POA poa = null;
        try {
            poa = root.create_POA("FTS-" + group, root.the_POAManager(), new Policy[] {
                root.create_lifespan_policy(LifespanPolicyValue.PERSISTENT),
                root.create_id_assignment_policy(IdAssignmentPolicyValue.USER_ID),
                root.create_servant_retention_policy(ServantRetentionPolicyValue.NON_RETAIN),
                root.create_request_processing_policy(RequestProcessingPolicyValue.USE_SERVANT_MANAGER)});
        } finally {
            created = poa == null ? null : "FTS-" + group;
            done.countDown();
        }
        return poa;
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
