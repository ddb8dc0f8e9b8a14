package org.fts.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.Any;
import org.omg.CORBA.ORB;
import org.omg.CORBA.StructMember;
import org.omg.CORBA.TCKind;
import org.omg.CORBA.TypeCode;
import org.omg.IOP.Codec;
import org.omg.IOP.CodecFactoryHelper;
import org.omg.IOP.ENCODING_CDR_ENCAPS;
import org.omg.IOP.Encoding;

/**
 * FTS's FT_REQUEST and FT_GROUP_VERSION encodings are exactly what the standard {@code IOP::Codec} produces and
 * reads for the FT-CORBA IDL structs, so other FT-CORBA ORBs interoperate; and IORs survive our parse/stringify.
 */
class StandardCodecInteropTest {
    private static ORB orb;
    private static Codec codec;

    @BeforeAll
    static void start() throws Exception {
        Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        p.setProperty("jacorb.log.default.verbosity", "0");
        orb = ORB.init(new String[0], p);
        codec = CodecFactoryHelper.narrow(orb.resolve_initial_references("CodecFactory"))
                .create_codec(new Encoding(ENCODING_CDR_ENCAPS.value, (byte) 1, (byte) 2));
    }

    @AfterAll
    static void stop() {
        orb.shutdown(false);
    }

    private static TypeCode ftRequestType() {
        return orb.create_struct_tc("IDL:omg.org/FT/FTRequestServiceContext:1.0", "FTRequestServiceContext",
                new StructMember[] {
                    new StructMember("client_id", orb.get_primitive_tc(TCKind.tk_string), null),
                    new StructMember("retention_id", orb.get_primitive_tc(TCKind.tk_long), null),
                    new StructMember("expiration_time", orb.get_primitive_tc(TCKind.tk_ulonglong), null)});
    }

    @Test
    void ftRequestReadsBackThroughTheStandardCodecAndTheOtherWayRound() throws Exception {
        FtRequestContext ours = new FtRequestContext("host/42/ab12cd34", 77, FtRequestContext.timeT(1_700_000_000_000L));
        org.omg.CORBA.portable.InputStream in = codec.decode_value(ours.encode(), ftRequestType()).create_input_stream();
        assertEquals("host/42/ab12cd34", in.read_string());
        assertEquals(77, in.read_long());
        assertEquals(ours.expirationTime(), in.read_ulonglong());

        org.omg.CORBA.portable.OutputStream out = orb.create_output_stream();
        out.write_string("other-orb");
        out.write_long(-5);
        out.write_ulonglong(123_456_789L);
        Any a = orb.create_any();
        a.read_value(out.create_input_stream(), ftRequestType());
        byte[] standard = codec.encode_value(a);
        assertEquals(new FtRequestContext("other-orb", -5, 123_456_789L), FtRequestContext.decode(standard));
    }

    @Test
    void groupVersionIsAStandardUnsignedLongEncapsulation() throws Exception {
        Any a = orb.create_any();
        a.insert_ulong(9);
        assertEquals(new FtGroupVersionContext(9), FtGroupVersionContext.decode(codec.encode_value(a)));
        assertEquals(9, codec.decode_value(new FtGroupVersionContext(9).encode(),
                orb.get_primitive_tc(TCKind.tk_ulong)).extract_ulong());
    }

    @Test
    void timeTCountsHundredNanosecondsSince1582() {
        assertEquals(0, FtRequestContext.timeT(-12_219_292_800_000L));
        assertEquals(1_700_000_000_000L, FtRequestContext.epochMillis(FtRequestContext.timeT(1_700_000_000_000L)));
    }

    @Test
    void anIogrSplitsIntoSingleProfileReferencesWithTheirEndpointsAndComponents() {
        byte[] ft = new FtGroupComponent("g", 5, 3).encode();
        List<Ior.Profile> profiles = List.of(iiop("127.0.0.1", 7001, ft), iiop("127.0.0.1", 7002, ft));
        Ior ior = new Ior("IDL:fts_samples/Counter:1.0", profiles);
        Ior back = Ior.parse(ior.stringify());
        assertEquals(ior.typeId(), back.typeId());
        assertEquals(List.of("127.0.0.1:7001", "127.0.0.1:7002"),
                back.profiles().stream().map(Ior.Profile::endpoint).toList());
        assertEquals(new FtGroupComponent("g", 5, 3),
                FtGroupComponent.decode(back.profiles().get(1).component(FtConstants.TAG_FT_GROUP)));
        Ior single = Ior.parse(back.withOnly(back.profiles().get(1)));
        assertEquals(List.of("127.0.0.1:7002"), single.profiles().stream().map(Ior.Profile::endpoint).toList());
        // The ORB reads what we write.
        org.omg.CORBA.Object o = orb.string_to_object(ior.stringify());
        assertEquals(ior.stringify().length(), orb.object_to_string(o).length());
        assertThrows(org.omg.CORBA.BAD_PARAM.class, () -> Ior.parse("corbaloc::x"));
        assertThrows(org.omg.CORBA.MARSHAL.class, () -> Ior.parse("IOR:00zz"));
        assertThrows(org.omg.CORBA.MARSHAL.class, () -> Ior.parse("IOR:0000000000000005"));
    }

    private static Ior.Profile iiop(String host, int port, byte[] ftGroup) {
        byte[] body = new Cdr.Writer().octet(1).octet(2).string(host).ushort(port).octets(new byte[] {1, 2, 3})
                .ulong(1).ulong(FtConstants.TAG_FT_GROUP).octets(ftGroup).bytes();
        return new Ior.Profile(Ior.TAG_INTERNET_IOP, body);
    }
}
