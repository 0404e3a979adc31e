"""the spare laptop: which laptop is the hall, its spare, what the spare holds; restored marks

``hall_state`` (one row): this laptop's role (the hall, a spare following one, a
hall its spare replaced), its generation and its backup folder.  ``hall_spare``
(one row, on the hall): the spare it pushes to.  ``spare_follow`` (one row, on the
spare): the hall it follows.  ``spare_unit``: what the spare holds, part by part.
``tournament.restored``: a tournament brought back from a backup or by a spare
taking over (the state's time, its last round, its deals).

Revision ID: c72929756c94
Revises: e2c7a9d4f1b6
Create Date: 2026-11-28 11:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c72929756c94'
down_revision = 'e2c7a9d4f1b6'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'hall_state',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('token', sa.String(length=32), nullable=False),
        sa.Column('role', sa.String(length=8), nullable=False),
        sa.Column('generation', sa.Integer(), nullable=False),
        sa.Column('since', sa.DateTime(), nullable=False),
        sa.Column('stand', sa.DateTime(), nullable=True),
        sa.Column('replaced_by', sa.String(length=300), nullable=False),
        sa.Column('replaced_at', sa.DateTime(), nullable=True),
        sa.Column('folder', sa.String(length=500), nullable=False),
        sa.Column('folder_written_at', sa.DateTime(), nullable=True),
        sa.Column('folder_files', sa.Integer(), nullable=False),
        sa.Column('folder_error', sa.String(length=300), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_hall_state')),
    )
    op.create_table(
        'hall_spare',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('code', sa.String(length=32), nullable=False),
        sa.Column('code_until', sa.DateTime(), nullable=True),
        sa.Column('code_tries', sa.Integer(), nullable=False),
        sa.Column('address', sa.String(length=300), nullable=False),
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('paired_at', sa.DateTime(), nullable=True),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('confirmed', sa.Integer(), nullable=False),
        sa.Column('confirmed_at', sa.DateTime(), nullable=True),
        sa.Column('confirmed_change', sa.DateTime(), nullable=True),
        sa.Column('units', sa.Integer(), nullable=False),
        sa.Column('tried_at', sa.DateTime(), nullable=True),
        sa.Column('error', sa.String(length=300), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_hall_spare')),
    )
    op.create_table(
        'spare_follow',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('hall_address', sa.String(length=300), nullable=False),
        sa.Column('hall_token', sa.String(length=32), nullable=False),
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('generation', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('paired_at', sa.DateTime(), nullable=False),
        sa.Column('received_at', sa.DateTime(), nullable=True),
        sa.Column('hall_time', sa.DateTime(), nullable=True),
        sa.Column('hall_change', sa.DateTime(), nullable=True),
        sa.Column('cards', sa.String(length=300), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_spare_follow')),
    )
    op.create_table(
        'spare_unit',
        sa.Column('kind', sa.String(length=1), nullable=False),
        sa.Column('unit_id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('fingerprint', sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint('kind', 'unit_id', name=op.f('pk_spare_unit')),
    )
    # ALTER TABLE … ADD COLUMN: every tournament there was made here (None)
    with op.batch_alter_table('tournament', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('restored', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('tournament', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('restored')
    op.drop_table('spare_unit')
    op.drop_table('spare_follow')
    op.drop_table('hall_spare')
    op.drop_table('hall_state')
