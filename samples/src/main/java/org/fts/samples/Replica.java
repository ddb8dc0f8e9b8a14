package org.fts.samples;

import java.nio.charset.StandardCharsets;
import java.util.Properties;

import org.fts.goa.GroupPOA;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
import org.omg.PortableServer.Servant;

/**
 * A replica of the sample objects ({@code hello}, {@code counter}, {@code account}). Configured by system
 * properties ({@code -Dfts.replica.id=r0 -DOAPort=...}; see docs/configuration.md), which it passes to
 * ORB.init and to the adaptor. The only FTS line is where the adaptor comes from; with {@code --plain} it
 * uses JacORB's RootPOA instead (an unreplicated baseline serving the same objects).
 *
 * <p>Prints {@code READY} on stdout once it serves, then runs until killed or until stdin closes.
 */
public final class Replica {
    static final String[] IDS = {"hello", "counter", "account"};

    private Replica() {
    }

    public static void main(String[] args) throws Exception {
        boolean plain = args.length > 0 && args[0].equals("--plain");
        Properties props = new Properties();
        props.putAll(Clients.orbDefaults());
        props.setProperty("jacorb.implname", "fts");
        props.setProperty("OAIAddr", "127.0.0.1");
        props.putAll(System.getProperties());
        ORB orb = ORB.init(args, props);
        POA poa;
        if (plain) {
            POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
            poa = root.create_POA("FTS-" + props.getProperty("fts.group", "fts"), root.the_POAManager(),
                    new org.omg.CORBA.Policy[] {
                        root.create_lifespan_policy(org.omg.PortableServer.LifespanPolicyValue.PERSISTENT),
                        root.create_id_assignment_policy(org.omg.PortableServer.IdAssignmentPolicyValue.USER_ID)});
        } else {
            poa = GroupPOA.create(orb, props);   // <- the one line a server changes
        }
        Servant[] servants = {new HelloObjImpl(), new CounterImpl(), new AccountImpl()};
        for (int i = 0; i < IDS.length; i++) {
            poa.activate_object_with_id(IDS[i].getBytes(StandardCharsets.UTF_8), servants[i]);
        }
        poa.the_POAManager().activate();
        for (String id : IDS) {   // the references clients use (object group references, unless --plain)
            System.out.println("IOGR " + id + " "
                    + orb.object_to_string(poa.id_to_reference(id.getBytes(StandardCharsets.UTF_8))));
        }
        Thread watchdog = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the launcher holds stdin open; EOF means it is gone
                }
            } catch (java.io.IOException ignored) {
                // same as EOF
            }
            Runtime.getRuntime().halt(0);
        }, "stdin-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        System.out.println("READY " + props.getProperty("fts.replica.id", "plain") + " " + props.getProperty("OAPort"));
        System.out.flush();
        orb.run();
    }
}
