#!/usr/bin/env python3
# Writes catalogs/grid_intensity.json: every cloud region the instance files price, with its grid carbon
# intensity (g CO2e/kWh) and each provider's PUE, read straight from three public repositories fetched as
# bare mirrors (the paths below): GoogleCloudPlatform/region-carbon-info (GCP, the newest year),
# cloud-carbon-footprint/cloud-carbon-footprint (AWS, Azure, PUE) and thegreenwebfoundation/co2.js
# (Electricity Maps yearly averages for the other providers, Ember's world average). Regions whose name
# does not fix a country are left out (the planner then uses the world average and says so).
#   python3 catalogs/tools/grid_intensity.py   (run from the repository root)
import json, glob, re, subprocess, csv, io, collections

def git(repo, *args):
    return subprocess.check_output(['git', '--git-dir=' + repo] + list(args), text=True)

CCF = '/work/.mirror/cloud-carbon-footprint+cloud-carbon-footprint/repo'
GCPR = '/work/.mirror/GoogleCloudPlatform+region-carbon-info/repo'
CO2JS = '/work/.mirror/thegreenwebfoundation+co2.js/repo'
ccf_c = git(CCF, 'rev-parse', 'HEAD').strip()
gcp_c = git(GCPR, 'rev-parse', 'HEAD').strip()
co2_c = git(CO2JS, 'rev-parse', 'HEAD').strip()

# ---- regions in use
used = collections.defaultdict(set)
for f in sorted(glob.glob('catalogs/instances/*.json')):
    d = json.load(open(f))
    for i in d['instances']:
        for p in i.get('prices') or []:
            if p.get('region') is not None:
                used[d['provider']].add(p['region'])

rows = []
def add(provider, region, g, source, year=None):
    assert region in used[provider], (provider, region)
    r = {'provider': provider, 'region': region, 'gco2e_per_kwh': round(g, 1), 'source': source}
    if year is not None: r['year'] = year
    rows.append(r)

# ---- GCP: Google region-carbon-info, newest year
years = sorted(int(re.search(r'(\d{4})\.csv', p).group(1)) for p in git(GCPR, 'ls-tree', '-r', '--name-only', 'HEAD').split() if p.startswith('data/yearly/'))
gy = years[-1]
gpath = f'data/yearly/{gy}.csv'
gcsv = list(csv.reader(io.StringIO(git(GCPR, 'show', f'HEAD:{gpath}'))))
hdr = gcsv[0]
ci = [i for i, h in enumerate(hdr) if h.startswith('Grid carbon intensity')][0]
gtab = {r[0]: (r[1], float(r[ci])) for r in gcsv[1:] if r}
for reg in sorted(used['gcp']):
    if reg in gtab:
        loc, v = gtab[reg]
        add('gcp', reg, v, f'Google Cloud region carbon data {gy}, "{hdr[ci]}" for {reg} ({loc}): github.com/GoogleCloudPlatform/region-carbon-info {gpath} @ {gcp_c}', gy)

# ---- CCF AWS / Azure
core = git(CCF, 'show', 'HEAD:packages/core/src/FootprintEstimationConstants.ts')
nerc = {k: float(v) for k, v in re.findall(r'(\w+): (0\.\d+),', core)}
def ccf_table(path, const):
    src = git(CCF, 'show', f'HEAD:{path}')
    body = src[src.index(const):]
    body = body[:body.index('\n  }')]
    out = {}
    for key, val in re.findall(r'\[(\w+_REGIONS\.\w+(?:\.name)?)\]:\s*([^,]+),', body):
        key = key.split('.')[1]
        val = val.strip()
        m = re.match(r'US_NERC_REGIONS_EMISSIONS_FACTORS\.(\w+)', val)
        out[key] = ('NERC', m.group(1), nerc[m.group(1)]) if m else ('NUM', None, float(val))
    return out
AWS_PATH = 'packages/aws/src/domain/AwsFootprintEstimationConstants.ts'
AZ_PATH = 'packages/azure/src/domain/AzureFootprintEstimationConstants.ts'
CORE_PATH = 'packages/core/src/FootprintEstimationConstants.ts'
aws = ccf_table(AWS_PATH, 'AWS_EMISSIONS_FACTORS_METRIC_TON_PER_KWH')
az = ccf_table(AZ_PATH, 'AZURE_EMISSIONS_FACTORS_METRIC_TON_PER_KWH')
# CCF's per-region source (microsite/docs/HowItWorks/Methodology.md, Appendix V)
CFP = 'carbonfootprint.com country grid factors (https://www.carbonfootprint.com/docs/2022_03_emissions_factors_sources_for_2021_electricity_v11.pdf)'
EEA = 'EEA CO2 emission intensity (https://www.eea.europa.eu/data-and-maps/daviz/co2-emission-intensity-9/#tab-chart_2)'
EPA = 'EPA eGRID2020 NERC-region factor (https://www.epa.gov/egrid/download-data)'
aws_meta = {  # region -> (CCF key, country as in CCF Appendix V, CCF-cited source, year)
 'us-east-1': ('US_EAST_1', 'United States', EPA, 2020), 'us-east-2': ('US_EAST_2', 'United States', EPA, 2020),
 'us-west-2': ('US_WEST_2', 'United States', EPA, 2020),
 'ap-northeast-1': ('AP_NORTHEAST_1', 'Japan', CFP, 2021), 'ap-south-1': ('AP_SOUTH_1', 'India', CFP, 2021),
 'ap-southeast-1': ('AP_SOUTHEAST_1', 'Singapore', CFP, 2021),
 'eu-central-1': ('EU_CENTRAL_1', 'Germany', EEA, None), 'eu-north-1': ('EU_NORTH_1', 'Sweden', EEA, None),
 'eu-west-1': ('EU_WEST_1', 'Ireland', EEA, None), 'eu-west-2': ('EU_WEST_2', 'England', EEA, None),
}
def ccf_src(provider, path, const, region, key, entry, where, cited):
    kind, nr, v = entry
    expr = f'US_NERC_REGIONS_EMISSIONS_FACTORS.{nr} = {v} t/kWh ({CORE_PATH})' if kind == 'NERC' else f'{v} t/kWh'
    return (f'Cloud Carbon Footprint {const}[{key}] = {expr}, x1e6 to g/kWh; {where}; CCF cites {cited} '
            f'(microsite/docs/HowItWorks/Methodology.md Appendix V): github.com/cloud-carbon-footprint/cloud-carbon-footprint {path} @ {ccf_c}')
for reg in sorted(used['aws']):
    key, where, cited, yr = aws_meta[reg]
    e = aws[key]
    if e[0] == 'NERC': where = f'{where}, NERC region {e[1]}'
    add('aws', reg, e[2] * 1e6, ccf_src('aws', AWS_PATH, 'AWS_EMISSIONS_FACTORS_METRIC_TON_PER_KWH', reg, f'AWS_REGIONS.{key}', e, where, cited), yr)
az_meta = {'eastus': ('US_EAST', 'East US, Virginia'), 'southcentralus': ('US_SOUTH_CENTRAL', 'South Central US, Texas'),
           'westus2': ('US_WEST_2', 'West US 2, Washington'), 'westus3': ('US_WEST_3', 'West US 3, Arizona')}
for reg in sorted(used['azure']):
    key, where = az_meta[reg]
    e = az[key]
    where = f'{where}, NERC region {e[1]}'
    add('azure', reg, e[2] * 1e6, ccf_src('azure', AZ_PATH, 'AZURE_EMISSIONS_FACTORS_METRIC_TON_PER_KWH', reg, f'AZURE_REGIONS.{key}.name', e, where, EPA), 2020)

# ---- Electricity Maps yearly 2025 via co2.js for all other providers
EM_PATH = 'data/output/electricity-maps/yearly_2025.json'
EM_YEAR = 2025
em = json.loads(git(CO2JS, 'show', f'HEAD:{EM_PATH}'))
def emsrc(zone, why):
    z = em[zone]['zone']
    name = z['zoneName'] + (f", {z['countryName']}" if z.get('countryName') else '')
    return (f'Electricity Maps {EM_YEAR} yearly average carbon intensity (lifecycle, gCO2eq/kWh) for zone {zone} ({name}); '
            f'{why}; republished (ODbL, credit Electricity Maps) in github.com/thegreenwebfoundation/co2.js {EM_PATH} @ {co2_c}')
def em_add(provider, region, zone, why):
    v = em[zone]['carbonIntensity']['value']
    assert v is not None, zone
    add(provider, region, float(v), emsrc(zone, why), EM_YEAR)

C = {'US': 'United States', 'CA': 'Canada', 'FI': 'Finland', 'FR': 'France', 'DE': 'Germany', 'IN': 'India', 'JP': 'Japan',
     'AU': 'Australia', 'NO': 'Norway', 'SE': 'Sweden', 'IT': 'Italy', 'IS': 'Iceland'}
def country(provider, region, cc, why=None):
    em_add(provider, region, cc, why or f'region "{region}" names the country ({C.get(cc, cc)}); country-wide average')

# lambda: only the US ones and australia-east-1 name their country
for r in sorted(used['lambda']):
    if r.startswith('us-'): country('lambda', r, 'US', f'Lambda region "{r}" is in the United States (us- prefix); state not given, country-wide average')
country('lambda', 'australia-east-1', 'AU', 'Lambda region "australia-east-1" is in Australia; state not given, country-wide average')

# nebius
country('nebius', 'eu-north1', 'FI', 'Nebius eu-north1 is its Finland data centre (Mantsala); country-wide average')
country('nebius', 'eu-west1', 'FR', 'Nebius eu-west1 is its Paris data centre (catalogs/instances/primeintellect.json also files zone eu-west1 under FR); country-wide average')
country('nebius', 'us-central1', 'US', 'Nebius us-central1 is in the United States (us- prefix); country-wide average')

# primeintellect: ISO country codes ("IS" left out: it also holds zone me-west-1, so Iceland is not certain)
for r in ['AU', 'CA', 'DE', 'FI', 'FR', 'IN', 'JP', 'US']:
    country('primeintellect', r, r, f'Prime Intellect region "{r}" is an ISO 3166 country code ({C[r]}); country-wide average')
# runpod: ISO country codes
for r in ['IN', 'NO', 'SE', 'US']:
    country('runpod', r, r, f'RunPod region "{r}" is an ISO 3166 country code ({C[r]}); country-wide average')

# cudo
em_add('cudo', 'ca-montreal-3', 'CA-QC', 'Cudo region "ca-montreal-3" is in Montreal, Quebec')
em_add('cudo', 'no-kristiansand-1', 'NO-NO2', 'Cudo region "no-kristiansand-1" is in Kristiansand, in the NO2 (southwest Norway) price zone')
em_add('cudo', 'se-stockholm-1', 'SE-SE3', 'Cudo region "se-stockholm-1" is in Stockholm, in the SE3 (south-central Sweden) price zone')
country('cudo', 'us-carlsbad-1', 'US', 'Cudo region "us-carlsbad-1" is in the United States (Carlsbad: state not certain); country-wide average')
em_add('cudo', 'us-newyork-1', 'US-NY-NYIS', 'Cudo region "us-newyork-1" is in New York State, all of which is the NYISO grid')
# do
em_add('do', 'tor1', 'CA-ON', 'DigitalOcean region "tor1" is Toronto, Ontario')
# fluidstack
for r in ['ARIZONA_USA', 'NORTH_DAKOTA_USA', 'UTAH_USA']:
    country('fluidstack', r, 'US', f'Fluidstack region "{r}" is in the United States (the state spans several grid balancing areas); country-wide average')
country('fluidstack', 'CANADA', 'CA'); country('fluidstack', 'FINLAND', 'FI')
# hyperstack
country('hyperstack', 'CANADA-1', 'CA'); country('hyperstack', 'US-1', 'US')
# jarvislabs
country('jarvislabs', 'IN2', 'IN', 'JarvisLabs region "IN2" is its second India region; country-wide average')
# paperspace
country('paperspace', 'East Coast (NY2)', 'US', 'Paperspace region "East Coast (NY2)" is on the US east coast (site not certain); country-wide average')
# seeweb
country('seeweb', 'it-fr2', 'IT', 'Seeweb region "it-fr2" is in Italy (it- prefix); country-wide average')
# verda
for r in sorted(used['verda']):
    country('verda', r, 'FI', f'Verda region "{r}" is in Finland (FIN); country-wide average')

# vast: "State, CC, continent"
sub = {'Quebec, CA, NA': ('CA-QC', 'Quebec'), 'British Columbia, CA, NA': ('CA-BC', 'British Columbia')}
for r in sorted(used['vast']):
    parts = [p.strip() for p in r.split(',')]
    cc = parts[1]
    if r in sub:
        em_add('vast', r, sub[r][0], f'Vast.ai location "{r}" is the province of {sub[r][1]}')
    elif cc == 'US':
        country('vast', r, 'US', f'Vast.ai location "{r}" is in the United States (a state spans several grid balancing areas, or none given); country-wide average')
    else:
        z = em[cc]['zone']['zoneName']
        country('vast', r, cc, f'Vast.ai location "{r}" names ISO country {cc} ({z}); country-wide average')

# oci: city in the region name
oci = {
 'af-casablanca-1': ('MA', 'Casablanca, Morocco', True), 'af-johannesburg-1': ('ZA', 'Johannesburg, South Africa', True),
 'ap-batam-1': ('ID', 'Batam, Indonesia', True), 'ap-chuncheon-1': ('KR', 'Chuncheon, South Korea', True),
 'ap-hyderabad-1': ('IN-SO', 'Hyderabad, Telangana, on the Southern India grid', False),
 'ap-kulai-2': ('MY-WM', 'Kulai, Johor, on the Peninsular Malaysia grid', False),
 'ap-melbourne-1': ('AU-VIC', 'Melbourne, Victoria', False), 'ap-mumbai-1': ('IN-WE', 'Mumbai, Maharashtra, on the Western India grid', False),
 'ap-osaka-1': ('JP-KN', 'Osaka, in the Kansai area', False), 'ap-seoul-1': ('KR', 'Seoul, South Korea', True),
 'ap-singapore-1': ('SG', 'Singapore', True), 'ap-singapore-2': ('SG', 'Singapore', True),
 'ap-sydney-1': ('AU-NSW', 'Sydney, New South Wales', False), 'ap-tokyo-1': ('JP-TK', 'Tokyo, in the Tokyo area', False),
 'ca-montreal-1': ('CA-QC', 'Montreal, Quebec', False), 'ca-toronto-1': ('CA-ON', 'Toronto, Ontario', False),
 'eu-amsterdam-1': ('NL', 'Amsterdam, Netherlands', True), 'eu-frankfurt-1': ('DE', 'Frankfurt, Germany', True),
 'eu-madrid-1': ('ES', 'Madrid, Spain', True), 'eu-madrid-3': ('ES', 'Madrid, Spain', True),
 'eu-marseille-1': ('FR', 'Marseille, France', True), 'eu-milan-1': ('IT-NO', 'Milan, in the North Italy price zone', False),
 'eu-paris-1': ('FR', 'Paris, France', True), 'eu-stockholm-1': ('SE-SE3', 'Stockholm, in the SE3 (south-central Sweden) price zone', False),
 'eu-turin-1': ('IT-NO', 'Turin, in the North Italy price zone', False), 'eu-zurich-1': ('CH', 'Zurich, Switzerland', True),
 'il-jerusalem-1': ('IL', 'Jerusalem, Israel', True), 'me-abudhabi-1': ('AE', 'Abu Dhabi, United Arab Emirates', True),
 'me-dubai-1': ('AE', 'Dubai, United Arab Emirates', True), 'me-jeddah-1': ('SA', 'Jeddah, Saudi Arabia', True),
 'me-riyadh-1': ('SA', 'Riyadh, Saudi Arabia', True), 'mx-monterrey-1': ('MX', 'Monterrey, Mexico', True),
 'mx-queretaro-1': ('MX', 'Queretaro, Mexico', True), 'sa-bogota-1': ('CO', 'Bogota, Colombia', True),
 'sa-santiago-1': ('CL-SEN', 'Santiago, on the Chilean national grid (SEN)', False),
 'sa-saopaulo-1': ('BR-CS', 'Sao Paulo, on the Central Brazil (south-east/centre-west) grid', False),
 'sa-valparaiso-1': ('CL-SEN', 'Valparaiso, on the Chilean national grid (SEN)', False),
 'sa-vinhedo-1': ('BR-CS', 'Vinhedo, Sao Paulo state, on the Central Brazil (south-east/centre-west) grid', False),
 'uk-cardiff-1': ('GB', 'Cardiff, Great Britain', True), 'uk-london-1': ('GB', 'London, Great Britain', True),
 'us-ashburn-1': ('US-MIDA-PJM', 'Ashburn, Virginia, in PJM', False), 'us-chicago-1': ('US-MIDA-PJM', 'Chicago, Illinois, in PJM', False),
 'us-phoenix-1': ('US', 'Phoenix, Arizona (served by two balancing areas)', True), 'us-sanjose-1': ('US-CAL-CISO', 'San Jose, California, in CAISO', False),
}
for r in sorted(used['oci']):
    zone, city, is_country = oci[r]
    em_add('oci', r, zone, f'OCI region "{r}" is {city}' + ('; country-wide average' if is_country else ''))

rows.sort(key=lambda x: (x['provider'], x['region']))

# ---- PUE
def pue_src(path, const, text):
    return f'Cloud Carbon Footprint {const} = {text}: github.com/cloud-carbon-footprint/cloud-carbon-footprint {path} @ {ccf_c}'
awsf = git(CCF, 'show', f'HEAD:{AWS_PATH}'); azf = git(CCF, 'show', f'HEAD:{AZ_PATH}')
GCP_PATH = 'packages/gcp/src/domain/GcpFootprintEstimationConstants.ts'
gcpf = git(CCF, 'show', f'HEAD:{GCP_PATH}')
pa = float(re.search(r'PUE_AVG: ([\d.]+)', awsf).group(1)); pz = float(re.search(r'PUE_AVG: ([\d.]+)', azf).group(1)); pg = float(re.search(r'PUE_AVG: ([\d.]+)', gcpf).group(1))
pue = [
 {'provider': 'aws', 'pue': pa, 'source': pue_src(AWS_PATH, 'AWS_CLOUD_CONSTANTS.PUE_AVG', f'{pa}') + ' (CCF Methodology: a conservative estimate from public AWS information, https://aws.amazon.com/blogs/aws/cloud-computing-server-utilization-the-environment/)'},
 {'provider': 'azure', 'pue': pz, 'source': pue_src(AZ_PATH, 'AZURE_CLOUD_CONSTANTS.PUE_AVG', f'{pz}') + ' (CCF Methodology: statement from Microsoft, fleet-wide trailing 12-month average; the Methodology appendix lists 1.125, the code uses 1.185)'},
 {'provider': 'gcp', 'pue': pg, 'source': pue_src(GCP_PATH, 'GCP_CLOUD_CONSTANTS.PUE_AVG', f'{pg}') + ' (fleet-wide average, https://www.google.com/about/datacenters/efficiency/; the same file holds trailing-12-month per-region values 1.07 to 1.13 for 7 regions)'},
]

# ---- world average: Ember via co2.js
AV_PATH = 'data/output/average-intensities.json'
av = json.loads(git(CO2JS, 'show', f'HEAD:{AV_PATH}'))['World']
world = {'gco2e_per_kwh': round(av['emissions_intensity_gco2_per_kwh'], 1),
         'source': f'Ember yearly electricity data, World {av["year"]} emissions intensity ({av["emissions_intensity_gco2_per_kwh"]} gCO2/kWh, from Ember country_overview_yearly, CC BY-SA 4.0): github.com/thegreenwebfoundation/co2.js {AV_PATH} @ {co2_c}',
         'year': av['year']}

out = {
 'source': f'GCP: Google region-carbon-info {gy} grid intensity; AWS/Azure: Cloud Carbon Footprint emission factors (EPA eGRID2020 NERC regions, carbonfootprint.com 2021, EEA); other providers: Electricity Maps {EM_YEAR} yearly zone averages via co2.js, mapped only where the region name fixes the country or grid; PUE: Cloud Carbon Footprint constants; world average: Ember {av["year"]} via co2.js',
 'as_of': '2026-12-07',
 'world_average': world,
 'pue': pue,
 'regions': rows,
}
with open('catalogs/grid_intensity.json', 'w') as f:
    json.dump(out, f, indent=2, ensure_ascii=False); f.write('\n')

cov = collections.Counter(r['provider'] for r in rows)
for p in sorted(used):
    got = {r['region'] for r in rows if r['provider'] == p}
    print(p, 'covered', len(got), 'left out', sorted(used[p] - got))
