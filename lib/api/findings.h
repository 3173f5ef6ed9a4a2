// The one place where the loader's and the diagnosis's own records (lib/resolve/findings.h,
// lib/diagnose/diagnosis.h) become the public result types, and the public options the
// loader's (issue 34): the stages below api/ never see
// include/abicheck/*, so the public structs can keep their layout while the loader's change.
#ifndef ABICHECK_LIB_API_FINDINGS_H_
#define ABICHECK_LIB_API_FINDINGS_H_

#include "abicheck/abicheck.h"
#include "lib/diagnose/diagnosis.h"
#include "lib/resolve/findings.h"

namespace abicheck {

// CheckOptions' loader part.
LoadOptions ToLoadOptions(const CheckOptions& options);

FoundBy ToFoundBy(HowFound how);
ProblemKind ToProblemKind(FailureKind kind);
TorchAbi ToTorchAbi(TorchUse use);
Problem ToProblem(LoadFailure failure);
Warning ToWarning(LoadNote note);
DeviceCheck ToDeviceCheck(DeviceFindings device);
// Every field of `findings` into the Report of the same meaning (the diagnosis's fields, causes
// and the std::string ABI, left as a new Report has them).
Report ToReport(LoadFindings findings);

// What the diagnosis reads and adds: the module, its failures and notes, moved out of `findings`
// (ToReport(findings, diagnosed) puts them back with what the diagnosis found).
Diagnosed ForDiagnosis(LoadFindings* findings);
Report ToReport(LoadFindings findings, Diagnosed diagnosed);

Difference ToDifference(PartChange change);
Candidate ToCandidate(NearDefinition near);
StringAbi ToStringAbi(StringAbiKind abi);
AbiDiff ToAbiDiff(BuildDelta delta);

// Report::loads and ::module as the device check of a report needs them (environment.cc's check
// of torch's own kernels), and what it adds (device, problems, warnings) appended to `report`.
LoadFindings DeviceCheckInput(const Report& report);
void AppendDeviceFindings(LoadFindings from, Report* report);

}  // namespace abicheck

#endif  // ABICHECK_LIB_API_FINDINGS_H_
