// SPDX-License-Identifier: GPL-2.0
// The EICAR anti-virus test file: harmless, and every scanner reports
// it. Written with the backslash escaped, so that this file is not one.
rule EICAR_test_file
{
	meta:
		description = "EICAR anti-virus test file"
	strings:
		$eicar = "X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"
	condition:
		$eicar at 0
}
