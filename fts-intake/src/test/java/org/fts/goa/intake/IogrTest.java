package org.fts.goa.intake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupComponent;
import org.fts.ft.Ior;
import org.junit.jupiter.api.Test;

/** The IOGR, built on FTS's one IOR codec: a profile per endpoint, one key, TAG_FT_GROUP on each. */
class IogrTest {
    private static final byte[] KEY = "impl/FTS-g/counter".getBytes(StandardCharsets.US_ASCII);

    private static String local() {
        Ior.Component codeSets = new Ior.Component(1, new byte[] {0, 0, 0, 0, 0, 1, 0, 1});
        return new Ior("IDL:fts_samples/Counter:1.0",
                List.of(new Ior.Iiop(1, 2, "127.0.0.1", 5001, KEY, List.of(codeSets)).profile())).stringify();
    }

    @Test
    void everyEndpointGetsAProfileWithTheSameKeyAndTheGroupTag() {
        String iogr = Iogr.build(local(), List.of("127.0.0.1:5000", "127.0.0.1:5001", "host-b:5002"), "g",
                "counter".getBytes(StandardCharsets.US_ASCII), 3);
        Ior ior = Ior.parse(iogr);
        assertEquals("IDL:fts_samples/Counter:1.0", ior.typeId());
        assertEquals(List.of("127.0.0.1:5000", "127.0.0.1:5001", "host-b:5002"),
                ior.profiles().stream().map(Ior.Profile::endpoint).toList());
        for (Ior.Profile p : ior.profiles()) {
            Ior.Iiop iiop = Ior.Iiop.decode(p.data());
            assertEquals(2, iiop.minor());
            assertArrayEquals(KEY, iiop.objectKey());
            assertNotNull(p.component(1), "the local profile's components are kept");
            FtGroupComponent group = FtGroupComponent.decode(p.component(FtConstants.TAG_FT_GROUP));
            assertEquals("g", group.ftDomainId());
            assertEquals(Iogr.groupId("counter".getBytes(StandardCharsets.US_ASCII)), group.objectGroupId());
            assertEquals(3, group.refVersion());
        }
        assertEquals(List.of("127.0.0.1:5001", "host-b:5002"),
                Ior.Iiop.decode(ior.profiles().get(0).data()).alternateAddresses(),
                "each profile names the other replicas, in order, for ORBs that read only the first profile");
        assertEquals(List.of("127.0.0.1:5000", "host-b:5002"),
                Ior.Iiop.decode(ior.profiles().get(1).data()).alternateAddresses());
    }

    @Test
    void alternateAddressesOfTheLocalReferenceAreNotCopied() {
        Ior.Iiop local = new Ior.Iiop(1, 2, "127.0.0.1", 5001, KEY,
                List.of(Ior.Iiop.alternateAddress("elsewhere", 9)));
        String with = new Ior("IDL:x:1.0", List.of(local.profile())).stringify();
        Ior ior = Ior.parse(Iogr.build(with, List.of("127.0.0.1:5000", "127.0.0.1:5001"), "g", new byte[] {1}, 1));
        assertEquals(List.of("127.0.0.1:5001"), Ior.Iiop.decode(ior.profiles().get(0).data()).alternateAddresses());
    }

    @Test
    void anAlternateAddressIsTheStandardEncapsulationOfHostAndPort() {
        Ior.Component c = Ior.Iiop.alternateAddress("host-b", 5002);
        assertEquals(Ior.TAG_ALTERNATE_IIOP_ADDRESS, c.tag());
        assertEquals(3, c.tag(), "IOP::TAG_ALTERNATE_IIOP_ADDRESS");
        // byte order, string length 7 (with NUL), "host-b\0", pad to 2, ushort 5002
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 7, 'h', 'o', 's', 't', '-', 'b', 0, 0, 0x13, (byte) 0x8a},
                c.data());
    }

    @Test
    void withoutEndpointsTheLocalProfileIsTheOnlyOne() {
        Ior ior = Ior.parse(Iogr.build(local(), List.of(), "g", new byte[] {1}, 1));
        assertEquals(List.of("127.0.0.1:5001"), ior.profiles().stream().map(Ior.Profile::endpoint).toList());
    }

    @Test
    void aTlsOnlyReplicaGivesEachProfileItsOwnTlsPortAndNoAlternates() {
        byte[] ssl = new org.fts.ft.Cdr.Writer().ushort(0x7a).ushort(0x20).ushort(6001).bytes();   // supports, requires, port
        Ior.Iiop local = new Ior.Iiop(1, 2, "127.0.0.1", 0, KEY, List.of(new Ior.Component(Ior.TAG_SSL_SEC_TRANS, ssl)));
        Ior ior = Ior.parse(Iogr.build(new Ior("IDL:x:1.0", List.of(local.profile())).stringify(),
                List.of("127.0.0.1:6000", "127.0.0.1:6001", "host-b:6002"), "g", new byte[] {1}, 1));
        assertEquals(List.of("127.0.0.1:6000", "127.0.0.1:6001", "host-b:6002"),
                ior.profiles().stream().map(Ior.Profile::endpoint).toList(), "endpoints are the TLS ports");
        for (Ior.Profile p : ior.profiles()) {
            Ior.Iiop body = Ior.Iiop.decode(p.data());
            assertEquals(0, body.port(), "no plaintext port");
            assertEquals(List.of(), body.alternateAddresses());
            byte[] c = p.component(Ior.TAG_SSL_SEC_TRANS);
            org.fts.ft.Cdr.Reader r = new org.fts.ft.Cdr.Reader(c);
            assertEquals(0x7a, r.ushort(), "the local replica's supported options are kept");
            assertEquals(0x20, r.ushort(), "and its required ones");
            assertEquals(Integer.parseInt(p.endpoint().substring(p.endpoint().lastIndexOf(':') + 1)), r.ushort());
        }
    }
}
