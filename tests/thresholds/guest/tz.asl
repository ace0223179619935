/*
 * SSDT for the user-threshold VM test (tests/thresholds): one ACPI thermal
 * zone whose temperature the guest sets at run time.
 *
 * _TMP returns 2732 + 10 * CMOS[0x50] deci-Kelvin, so the CMOS byte is the
 * temperature in whole degrees Celsius. The guest writes it through
 * /dev/port (index 0x70, data 0x71). Linux serves SystemCMOS regions only
 * below the RTC device (its ACPI CMOS RTC handler is installed on the
 * PNP0B00 node), so the region lives in qemu's RTC scope, which is
 * \_SB.PCI0.S08.RTC on qemu 7.2's "pc" machine (the ISA bridge at 01.0).
 * CMOS byte 0x50 is unused by qemu and SeaBIOS. _TZP = 10: the kernel polls
 * the zone every 1 s; _CRT = 120 C, far above the test's range.
 */
DefinitionBlock ("tz.aml", "SSDT", 2, "COOLHD", "THRTZ", 1)
{
    External (\_SB.PCI0.S08.RTC, DeviceObj)
    Scope (\_SB.PCI0.S08.RTC)
    {
        OperationRegion (CHTR, SystemCMOS, 0x50, 1)
        Field (CHTR, ByteAcc, NoLock, Preserve)
        {
            TDEG, 8
        }
    }
    Scope (\_TZ)
    {
        ThermalZone (CHTZ)
        {
            Method (_TMP, 0, Serialized)
            {
                Return (Add (2732, Multiply (\_SB.PCI0.S08.RTC.TDEG, 10)))
            }
            Method (_CRT, 0, Serialized)
            {
                Return (3932)
            }
            Name (_TZP, 10)
        }
    }
}
